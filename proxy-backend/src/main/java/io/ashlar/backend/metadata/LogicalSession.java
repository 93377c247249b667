package io.ashlar.backend.metadata;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.session.SessionIdentity;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.IndexReference;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.ProjectionKind;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SessionValueReference;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.rewrite.template.Identifiers;
import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one session of a sharded logical database asks of the logical schema: which statements the catalog
 * database answers, the session values the proxy answers ({@code current_user} is the proxy user,
 * {@code current_database()} the logical database), the column list an INSERT leaves out, results and errors in
 * logical names, and the definitions to read again after the session's DDL. Used by the session's thread only.
 */
public final class LogicalSession {

    /** The relation catalogs: a query that reads one is about tables and goes to the catalog database. */
    private static final Set<String> RELATION_CATALOGS = Set.of("pg_class", "pg_attribute", "pg_attrdef", "pg_index",
            "pg_constraint", "pg_description", "pg_depend", "pg_sequence", "pg_inherits", "pg_partitioned_table",
            "pg_statistic", "pg_statistic_ext", "pg_trigger", "pg_rewrite", "pg_policy", "pg_tables", "pg_indexes",
            "pg_views", "pg_matviews", "pg_sequences", "pg_stats", "pg_stat_user_tables", "pg_stat_all_tables",
            "pg_statio_user_tables", "pg_statio_all_tables", "pg_stat_user_indexes", "pg_stat_all_indexes",
            "pg_publication_tables");

    /** The namespace catalog: a query of it alone goes to the catalog database too, whose OIDs pg_class holds. */
    private static final String NAMESPACES = "pg_namespace";

    /** {@link #changedTables} when a DDL's tables are not known: everything is read again. */
    private static final String ALL = "*";

    private final LogicalDatabase database;
    private final SessionIdentity identity;
    private Set<String> changedTables;
    /** The temporary tables the session made through the proxy (null for none). */
    private Set<String> temporaryTables;
    /** The last columns mapped to logical ones, and the result: a statement run again maps the same columns. */
    private ColumnDescription[] lastColumns;
    private ColumnDescription[] lastLogicalColumns;
    private int lastDataSource;
    private long lastVersion;

    public LogicalSession(LogicalDatabase database, SessionIdentity identity) {
        this.database = database;
        this.identity = identity;
    }

    // ------------------------------------------------------------------ statements

    /**
     * The plan that runs for {@code plan}: itself, or the statement with its session values answered and its
     * INSERT column list written out. A table the statement names that no rule knows is looked for first.
     */
    public Plan adjust(Plan plan) {
        LogicalPlan state = state(plan);
        if (state.plain()) {
            return plan;
        }
        Plan result = state.withColumns() != null ? state.withColumns() : plan;
        if (state.sessionValues() && !result.statement().sessionValues().isEmpty()) {
            result = database.plans().get(answerSessionValues(result.statement()));
        }
        return result;
    }

    /** Whether the catalog database answers the statement (a query of the relation catalogs), when there is one. */
    public boolean fromCatalog(Plan plan) {
        return state(plan).catalogQuery() && database.catalog().catalogDataSource() != null;
    }

    private LogicalPlan state(Plan plan) {
        LogicalCatalog catalog = database.catalog();
        LogicalPlan state = plan.logical();
        if (state != null && state.version() == catalog.schema().version()) {
            return state;
        }
        AnalyzedStatement statement = plan.statement();
        lookUpUnknownTables(statement);
        LogicalSchema schema = catalog.schema();
        boolean catalogQuery = isCatalogQuery(statement);
        boolean sessionValues = !catalogQuery && !statement.sessionValues().isEmpty() && switch (statement.kind()) {
            case SELECT, INSERT, UPDATE, DELETE, MERGE -> true;
            default -> false;
        };
        state = new LogicalPlan(schema.version(), catalogQuery, sessionValues, withColumns(statement, schema));
        plan.logical(state);
        return state;
    }

    /** Looks for public tables the statement names that neither the rules nor the schema know (once per table). */
    private void lookUpUnknownTables(AnalyzedStatement statement) {
        if (statement.tables().isEmpty()) {
            return;
        }
        ShardingRules rules = database.rules();
        LogicalCatalog catalog = database.catalog();
        for (TableReference each : statement.tables()) {
            String schemaName = each.name().schema().orElse("");
            String name = each.name().name();
            if (!each.isAccess() || !(schemaName.isEmpty() || schemaName.equals(SchemaLoader.PUBLIC))
                    || name.startsWith("pg_") || rules.find(name).isPresent() || catalog.schema().isAbsent(name)) {
                continue;
            }
            catalog.lookUp(name);
        }
    }

    static boolean isCatalogQuery(AnalyzedStatement statement) {
        if (statement.kind() != StatementKind.SELECT) {
            return false;
        }
        boolean relations = statement.catalogFunctions();
        boolean namespacesOnly = true;
        int catalogs = 0;
        for (TableReference each : statement.tables()) {
            if (!each.isAccess()) {
                continue;
            }
            String schema = each.name().schema().orElse("");
            String name = each.name().name();
            if (schema.equals("information_schema")) {
                relations = true;
            } else if (schema.equals("pg_catalog") || schema.isEmpty() && name.startsWith("pg_")) {
                relations |= RELATION_CATALOGS.contains(name);
                namespacesOnly &= name.equals(NAMESPACES);
                catalogs++;
            } else {
                return false; // a table of the user's: the statement is not about the catalog alone
            }
        }
        // Schemas listed on their own (pgjdbc's getSchemas, DBeaver's navigator) carry the OIDs that the catalog
        // database's pg_class refers to; with functions or types they are the default data source's.
        return relations || catalogs > 0 && namespacesOnly;
    }

    /**
     * {@code INSERT INTO t VALUES (...)} into a sharded table becomes {@code INSERT INTO t (a, b, ...) VALUES (...)}:
     * PostgreSQL gives the values to the table's first columns in order, and so does the column list of as many
     * columns as the first row has values; the route then finds the sharding values. Null when there is nothing
     * to write out.
     */
    private Plan withColumns(AnalyzedStatement statement, LogicalSchema schema) {
        if (statement.kind() == StatementKind.SELECT && statement.body() instanceof SelectStatement select) {
            return withStarColumns(statement, select, schema);
        }
        if (statement.kind() != StatementKind.INSERT || !(statement.body() instanceof InsertStatement insert)
                || !insert.columns().isEmpty() || insert.defaultValues() || insert.rows().isEmpty()) {
            return null;
        }
        TableReference target = statement.tables().get(insert.target());
        String schemaName = target.name().schema().orElse(SchemaLoader.PUBLIC);
        RuleTable rule = schemaName.equals(SchemaLoader.PUBLIC) ? database.rules().find(target.name().name()).orElse(null) : null;
        LogicalTable table = schema.table(schemaName + "." + target.name().name());
        if (!(rule instanceof ShardingTable || rule instanceof BroadcastTable) || table == null) {
            return null;
        }
        String sql = statement.sql();
        int at = target.range().end();
        try {
            TokenList after = Lexer.tokenize(sql.substring(at));
            if (after.isKeyword(0, Keyword.AS) && after.size() > 1) {
                at += after.end(1);
            }
        } catch (SqlSyntaxException e) {
            return null;
        }
        List<String> columns = table.metadata().columnNames();
        int count = Math.min(insert.rows().get(0).values().size(), columns.size());
        StringBuilder text = new StringBuilder(sql.length() + 16 * count).append(sql, 0, at).append(" (");
        for (int i = 0; i < count; i++) {
            text.append(i == 0 ? "" : ", ").append(Identifiers.write(columns.get(i), false));
        }
        text.append(')').append(sql, at, sql.length());
        try {
            return database.plans().get(text.toString());
        } catch (SqlSyntaxException e) {
            return null;
        }
    }

    /**
     * {@code SELECT *} (or {@code t.*}) over a sharded table whose actual tables do not all have the logical table's
     * columns in its order becomes the column list of the logical table: each shard then returns its rows in the
     * logical order, and the rows line up. Only where the star surely means that table's columns: {@code t.*}, or
     * {@code *} over a query of one table and no subquery. Null when nothing is written out.
     */
    private Plan withStarColumns(AnalyzedStatement statement, SelectStatement select, LogicalSchema schema) {
        String sql = statement.sql();
        StringBuilder text = null;
        int at = 0;
        List<TableReference> tables = null;
        for (ProjectionItem item : select.projections()) {
            if (item.kind() != ProjectionKind.STAR && item.kind() != ProjectionKind.QUALIFIED_STAR) {
                continue;
            }
            tables = tables == null ? statement.tablesIn(0) : tables;
            TableReference table = null;
            String qualifier = null;
            if (item.kind() == ProjectionKind.QUALIFIED_STAR && item.starQualifier().isPresent()) {
                for (TableReference each : tables) {
                    if (each.exposedName().equals(item.starQualifier().get())) {
                        table = each;
                    }
                }
                String written = item.expressionRange().text(sql);
                qualifier = written.substring(0, written.lastIndexOf('*'));
            } else if (item.kind() == ProjectionKind.STAR && tables.size() == 1 && statement.blocks().size() == 1
                    && isWholeFromList(sql, tables.get(0))) {
                table = tables.get(0);
                qualifier = Identifiers.write(table.exposedName(), false) + ".";
            }
            LogicalTable logical = table == null ? null
                    : schema.table(table.name().schema().orElse(SchemaLoader.PUBLIC) + "." + table.name().name());
            if (logical == null || !logical.columnsDiffer() || logical.kind() != LogicalTable.Kind.SHARDED) {
                continue;
            }
            if (text == null) {
                text = new StringBuilder(sql.length() + 64);
            }
            text.append(sql, at, item.expressionRange().start());
            List<String> columns = logical.metadata().columnNames();
            for (int i = 0; i < columns.size(); i++) {
                text.append(i == 0 ? "" : ", ").append(qualifier).append(Identifiers.write(columns.get(i), false));
            }
            at = item.expressionRange().end();
        }
        if (text == null) {
            return null;
        }
        try {
            return database.plans().get(text.append(sql, at, sql.length()).toString());
        } catch (SqlSyntaxException e) {
            return null;
        }
    }

    /** Whether {@code FROM table [[AS] alias]} is the whole FROM list: no join, function or other table beside it. */
    private static boolean isWholeFromList(String sql, TableReference table) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return false;
        }
        int first = -1;
        int last = -1;
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.start(i) == table.range().start()) {
                first = i;
            }
            if (tokens.end(i) == table.range().end()) {
                last = i;
            }
        }
        if (first < 1 || last < first || !tokens.isKeyword(first - 1, Keyword.FROM)) {
            return false;
        }
        int next = last + 1;
        if (tokens.isKeyword(next, Keyword.AS)) {
            next++;
        }
        if (table.alias().isPresent()) {
            next++;
        }
        return next >= tokens.size() || tokens.is(next, TokenKind.SEMICOLON) || switch (tokens.keyword(next)) {
            case WHERE, GROUP, HAVING, WINDOW, ORDER, LIMIT, OFFSET, FETCH, FOR -> true;
            default -> false;
        };
    }

    /**
     * The statement with each session value replaced by a one-row subquery of the proxy's answer under the column
     * name PostgreSQL gives the value, so that {@code SELECT current_user} still has a column named current_user of
     * type name, and the value stands wherever an expression may.
     */
    private String answerSessionValues(AnalyzedStatement statement) {
        String sql = statement.sql();
        StringBuilder result = new StringBuilder(sql.length() + 64);
        int at = 0;
        for (SessionValueReference each : statement.sessionValues()) {
            result.append(sql, at, each.range().start()).append("(SELECT ");
            switch (each.value()) {
                case CURRENT_USER, CURRENT_ROLE, USER, SESSION_USER ->
                        result.append("CAST(").append(MetadataReader.literal(identity.user())).append(" AS pg_catalog.name)");
                case CURRENT_CATALOG, CURRENT_DATABASE ->
                        result.append("CAST(").append(MetadataReader.literal(identity.database())).append(" AS pg_catalog.name)");
                case INET_SERVER_PORT -> result.append(identity.serverAddress() == null ? "CAST(NULL AS integer)"
                        : Integer.toString(identity.serverPort()));
                case INET_SERVER_ADDR -> result.append("CAST(").append(identity.serverAddress() == null ? "NULL"
                        : MetadataReader.literal(identity.serverAddress())).append(" AS pg_catalog.inet)");
            }
            result.append(" AS ").append(Identifiers.write(each.value().columnName(), true)).append(')');
            at = each.range().end();
        }
        return result.append(sql, at, sql.length()).toString();
    }

    // ------------------------------------------------------------------ results and errors

    /** A result of a data source, its columns and notices in logical names; the same result when nothing changes. */
    public QueryResult logical(QueryResult result, int dataSource) {
        LogicalSchema schema = database.catalog().schema();
        ColumnDescription[] columns = result.hasRows() ? logicalColumns(schema, dataSource, result.columns()) : null;
        List<ErrorFields> notices = result.notices().isEmpty() ? result.notices() : logicalNotices(schema, result.notices());
        if ((columns == null || columns == result.columns()) && notices == result.notices()) {
            return result;
        }
        return new LogicalResult(result, columns, notices);
    }

    /** Columns a data source described, in logical terms (for a Describe). */
    public ColumnDescription[] logicalColumns(int dataSource, ColumnDescription[] columns) {
        return logicalColumns(database.catalog().schema(), dataSource, columns);
    }

    private ColumnDescription[] logicalColumns(LogicalSchema schema, int dataSource, ColumnDescription[] columns) {
        if (lastColumns != null && dataSource == lastDataSource && schema.version() == lastVersion
                && java.util.Arrays.equals(lastColumns, columns)) {
            return lastLogicalColumns == lastColumns ? columns : lastLogicalColumns;
        }
        ColumnDescription[] result = schema.logicalColumns(dataSource, columns);
        lastColumns = columns;
        lastLogicalColumns = result;
        lastDataSource = dataSource;
        lastVersion = schema.version();
        return result;
    }

    /**
     * A failure of a backend in logical names. A missing relation also makes the schema look for names it
     * remembered as absent again: the table may have been made since.
     */
    public StatementFailure logical(StatementFailure failure) {
        if (failure.fields().sqlState().equals("42P01")) {
            database.catalog().forgetAbsent();
        }
        ErrorFields fields = database.catalog().schema().logical(failure.fields());
        return fields == failure.fields() ? failure : new StatementFailure(fields, failure.getCause());
    }

    /** A COPY whose errors name logical tables. */
    public CopyStream logical(CopyStream stream) {
        return LogicalCopyStream.of(stream, database.catalog().schema());
    }

    /** Notices in logical names, those that became identical (one per actual table) once. */
    private static List<ErrorFields> logicalNotices(LogicalSchema schema, List<ErrorFields> notices) {
        if (!schema.renamesTables()) {
            return notices;
        }
        List<ErrorFields> result = new ArrayList<>(notices.size());
        boolean changed = false;
        for (ErrorFields each : notices) {
            ErrorFields renamed = schema.logical(each);
            changed |= renamed != each;
            boolean seen = false;
            for (ErrorFields kept : result) {
                if (java.util.Arrays.equals(kept.codes(), renamed.codes()) && java.util.Arrays.equals(kept.values(), renamed.values())) {
                    seen = true;
                    break;
                }
            }
            if (seen) {
                changed = true;
            } else {
                result.add(renamed);
            }
        }
        return changed ? result : notices;
    }

    /** A result seen through other columns and notices. */
    private static final class LogicalResult implements QueryResult {
        private final QueryResult result;
        private final ColumnDescription[] columns;
        private final List<ErrorFields> notices;

        LogicalResult(QueryResult result, ColumnDescription[] columns, List<ErrorFields> notices) {
            this.result = result;
            this.columns = columns;
            this.notices = notices;
        }

        @Override
        public boolean hasRows() {
            return result.hasRows();
        }

        @Override
        public ColumnDescription[] columns() {
            return columns == null ? result.columns() : columns;
        }

        @Override
        public boolean next() throws StatementFailure {
            return result.next();
        }

        @Override
        public RowValues row() {
            return result.row();
        }

        @Override
        public String tag() {
            return result.tag();
        }

        @Override
        public boolean isEmptyQuery() {
            return result.isEmptyQuery();
        }

        @Override
        public List<ErrorFields> notices() {
            return notices;
        }

        @Override
        public void close() {
            result.close();
        }
    }

    // ------------------------------------------------------------------ schema changes

    /**
     * A DDL statement of the session succeeded. The tables it names are read again when the session is outside any
     * transaction (now, or at the end of the transaction it ran in, whose changes other connections see only then).
     * DDL of the session's temporary tables (it makes one, or names one it made) changes no logical table: those
     * live on the session's own connections, and its catalog database connection is to get the same statement, so
     * that its catalog queries see them.
     *
     * @param createsTemporary whether the statement makes a temporary object
     * @return whether the statement is to run on the session's catalog database connection too
     */
    public boolean ranDdl(AnalyzedStatement statement, boolean createsTemporary) {
        if (!(statement.body() instanceof DdlStatement ddl) || ddl.kind() == DdlKind.TRUNCATE_TABLE) {
            return false;
        }
        boolean temporary = createsTemporary;
        for (TableReference each : statement.tables()) {
            if (each.role() != TableRole.DDL_TARGET) {
                continue;
            }
            String name = each.name().name();
            if (createsTemporary) {
                temporaryTables = temporaryTables == null ? new HashSet<>() : temporaryTables;
                temporaryTables.add(name);
            } else if (temporaryTables != null && temporaryTables.contains(name)) {
                if (ddl.kind() == DdlKind.CREATE_TABLE) {
                    temporaryTables.remove(name); // a table of that name again, not temporary: the other went
                    continue;
                }
                temporary = true;
                if (ddl.kind() == DdlKind.DROP_TABLE) {
                    temporaryTables.remove(name);
                }
            }
        }
        if (temporary) {
            return database.catalog().catalogDataSource() != null;
        }
        Set<String> tables = changedTables == null ? new LinkedHashSet<>() : changedTables;
        boolean known = switch (ddl.kind()) {
            case CREATE_TABLE, ALTER_TABLE, DROP_TABLE, CREATE_INDEX, ALTER_INDEX, DROP_INDEX -> true;
            default -> false;
        };
        if (!known) {
            if (!ddl.objectType().equals("schema")) {
                return false;
            }
            tables.add(ALL);
        }
        for (TableReference each : statement.tables()) {
            if (each.isAccess()) {
                tables.add(each.name().schema().orElse(SchemaLoader.PUBLIC) + "." + each.name().name());
            }
        }
        for (IndexReference each : statement.indexes()) {
            if (each.table().isEmpty() && !each.constraint()) {
                String table = database.rules().indexTable(each.name().name()).orElse(null);
                tables.add(table == null ? ALL : SchemaLoader.PUBLIC + "." + table);
            }
        }
        if (tables.isEmpty()) {
            tables.add(ALL);
        }
        changedTables = tables;
        return false;
    }

    /** The session is outside any transaction: what its DDL changed is read again. */
    public void idle() {
        Set<String> tables = changedTables;
        if (tables == null) {
            return;
        }
        changedTables = null;
        database.catalog().refresh(tables.contains(ALL) ? null : tables);
    }

    // ------------------------------------------------------------------ REFRESH TABLE METADATA

    /** Whether the statement is {@code REFRESH TABLE METADATA ...}, ShardingSphere's DistSQL. */
    public static boolean isRefresh(AnalyzedStatement statement) {
        return statement.kind() == StatementKind.OTHER && statement.command().equals("refresh")
                && RefreshTableMetadata.matches(statement.sql());
    }

    /**
     * Runs {@code REFRESH TABLE METADATA [table] [FROM STORAGE UNIT ds [SCHEMA s]]}: the definitions are read again
     * from the data sources and the catalog database's shells brought in step; what disagrees among actual tables is
     * told as a WARNING each.
     */
    public QueryResult refresh(AnalyzedStatement statement) throws StatementFailure {
        RefreshTableMetadata command = RefreshTableMetadata.parse(statement.sql());
        if (command.dataSource() != null && database.dataSourceIndex(command.dataSource()) < 0) {
            throw new StatementFailure(ErrorFields.error("42704", "storage unit \"" + command.dataSource()
                    + "\" does not exist in logical database " + database.name()));
        }
        String table = command.table() == null ? null : command.schema() + "." + command.table();
        List<String> problems = database.catalog().refresh(table == null ? null : List.of(table));
        if (table != null && database.catalog().schema().table(table) == null) {
            throw new StatementFailure(ErrorFields.error("42P01", "relation \"" + command.table() + "\" does not exist"));
        }
        List<ErrorFields> notices = new ArrayList<>(problems.size());
        for (String each : problems) {
            notices.add(ErrorFields.of("WARNING", "01000", each));
        }
        return new TagResult("REFRESH TABLE METADATA", notices);
    }
}
