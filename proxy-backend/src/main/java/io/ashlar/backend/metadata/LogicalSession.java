package io.ashlar.backend.metadata;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.BackendSession.SessionObjects;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.session.SessionIdentity;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.IndexReference;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.route.rule.ShardingRules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one session of a sharded logical database asks of the logical schema: which statements the catalog
 * database answers ({@link CatalogQueries}), the session values the proxy answers ({@link SessionAnswers}), the
 * columns only the schema knows ({@link ColumnLists}), results and errors in logical names, and the definitions to
 * read again after the session's DDL. Used by the session's thread only.
 */
public final class LogicalSession {

    /** {@link #changedTables} when a DDL's tables are not known: everything is read again. */
    private static final String ALL = "*";

    /** The objects whose DDL changes the types clients are told of (the catalog database copies them). */
    private static final Set<String> TYPE_OBJECTS = Set.of("type", "domain", "extension");
    /** DDL of views: the catalog database takes the default data source's views again ({@link LogicalCatalog#refreshViews}). */
    private static final String VIEW = "view";
    /** DDL of sequences: the catalog database takes the stand-alone sequences again ({@link LogicalCatalog#refreshSequences}). */
    private static final String SEQUENCE = "sequence";

    private final LogicalDatabase database;
    private final SessionAnswers answers;
    /** The session's statements and cursors ({@link #sessionObjects}); null for none. */
    private SessionObjects objects;
    private Set<String> changedTables;
    /** Whether the session's DDL changed types or extensions ({@link LogicalCatalog#refreshTypes}). */
    private boolean changedTypes;
    /** Whether the session's DDL changed views ({@link LogicalCatalog#refreshViews}). */
    private boolean changedViews;
    /** Whether the session's DDL changed sequences ({@link LogicalCatalog#refreshSequences}). */
    private boolean changedSequences;
    /** The temporary tables the session made through the proxy (null for none). */
    private Set<String> temporaryTables;
    /** The last columns mapped to logical ones, and the result: a statement run again maps the same columns. */
    /**
     * The logical columns of the row descriptions this session met last, by the identity of the data source's array
     * (its connections hand out one array per distinct RowDescription): direct-mapped, made at the first result, so
     * that a statement run again finds its own without comparing columns.
     */
    private static final int COLUMN_SLOTS = 32;
    private Seen[] seen;

    /** A data source's columns and their logical form under one version of the schema. */
    private record Seen(ColumnDescription[] columns, ColumnDescription[] logical, int dataSource, long version) {
    }

    public LogicalSession(LogicalDatabase database, SessionIdentity identity) {
        this.database = database;
        this.answers = new SessionAnswers(identity);
    }

    // ------------------------------------------------------------------ statements

    /**
     * The plan that runs for {@code plan}: itself, or the statement with its session values answered and its
     * columns written out (an INSERT's column list, a star). A table the statement names that no rule knows is looked
     * for first.
     */
    public Plan adjust(Plan plan) throws StatementFailure {
        LogicalPlan state = state(plan);
        if (state.plain()) {
            return plan;
        }
        if (state.withColumns() != null && changedTables != null) {
            refuseStaleColumns(plan.statement(), changedTables);
        }
        Plan result = state.withColumns() != null ? state.withColumns() : plan;
        if (state.sessionValues() && !result.statement().sessionValues().isEmpty()) {
            result = database.plans().get(answers.answered(result.statement()));
        }
        if (state.sessionViews() && objects != null) {
            // The text carries the session's objects of this moment: analysed for this run alone, never cached.
            result = database.plans().uncached(SessionViews.substituted(result.statement(), objects));
        }
        return result;
    }

    /**
     * Where the session's statements and cursors come from, for the views that list them ({@link SessionViews}); without
     * it (a PREVIEW's session) those views are the data source's.
     */
    public void sessionObjects(SessionObjects objects) {
        this.objects = objects;
    }

    /**
     * A statement whose columns the proxy writes out (an INSERT without a column list, a star) from a table that DDL of
     * this transaction changed: the schema the proxy keeps is the one before the transaction (it reads the table again
     * when the transaction ends), so the written-out columns could be the old ones in the old order, and an INSERT's
     * values would land in the wrong columns (Flyway's migrations run ALTER TABLE and INSERT in one transaction).
     */
    private static void refuseStaleColumns(AnalyzedStatement statement, Set<String> changed) throws StatementFailure {
        for (TableReference each : statement.tables()) {
            String name = each.name().schema().orElse(SchemaLoader.PUBLIC) + "." + each.name().name();
            if (each.isAccess() && (changed.contains(ALL) || changed.contains(name))) {
                String table = each.name().name();
                boolean insert = statement.kind() == StatementKind.INSERT;
                throw new StatementFailure(ErrorFields.error("0A000", (insert ? "INSERT without a column list into " : "SELECT * of ")
                        + "table " + table + ", which DDL changed in this transaction, is not supported: Ashlar reads the table's"
                        + " columns again when the transaction ends", insert ? "name the columns: INSERT INTO " + table + " (...) VALUES (...)"
                        : "name the columns, or run the statement after the transaction"));
            }
        }
    }

    /** Whether the catalog database answers the statement (a query of the relation catalogs), when there is one. */
    public boolean fromCatalog(Plan plan) {
        // A sequence function runs where the sequences are (setval(pg_get_serial_sequence('t', 'id'), ...) names no table)
        return plan.sequence() == null && state(plan).catalogQuery() && database.catalog().catalogDataSource() != null;
    }

    private LogicalPlan state(Plan plan) {
        return state(plan, true);
    }

    /** @param lookUp whether tables neither the rules nor the schema know may be looked up (it waits); else null then */
    private LogicalPlan state(Plan plan, boolean lookUp) {
        LogicalCatalog catalog = database.catalog();
        LogicalPlan state = plan.logical();
        if (state != null && state.version() == catalog.schema().version()) {
            return state;
        }
        AnalyzedStatement statement = plan.statement();
        if (!lookUp) {
            if (namesUnknownTables(statement)) {
                return null;
            }
        } else {
            lookUpUnknownTables(statement);
        }
        LogicalSchema schema = catalog.schema();
        boolean catalogQuery = CatalogQueries.answers(statement);
        boolean sessionValues = !catalogQuery && !statement.sessionValues().isEmpty() && switch (statement.kind()) {
            case SELECT, INSERT, UPDATE, DELETE, MERGE -> true;
            default -> false;
        };
        state = new LogicalPlan(schema.version(), catalogQuery, sessionValues, withColumns(statement, schema),
                statement.kind() == StatementKind.SELECT && SessionViews.names(statement));
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
            if (unknown(each, rules, catalog)) {
                catalog.lookUp(each.name().name());
            }
        }
    }

    /** Whether the statement names a table to look up in the data sources ({@link #lookUpUnknownTables}). */
    private boolean namesUnknownTables(AnalyzedStatement statement) {
        ShardingRules rules = database.rules();
        LogicalCatalog catalog = database.catalog();
        for (TableReference each : statement.tables()) {
            if (unknown(each, rules, catalog)) {
                return true;
            }
        }
        return false;
    }

    /** A public table the statement reads or writes that neither the rules nor the schema know (nor know to be absent). */
    private static boolean unknown(TableReference table, ShardingRules rules, LogicalCatalog catalog) {
        String schemaName = table.name().schema().orElse("");
        String name = table.name().name();
        return table.isAccess() && (schemaName.isEmpty() || schemaName.equals(SchemaLoader.PUBLIC))
                && !name.startsWith("pg_") && rules.find(name).isEmpty() && !catalog.schema().isAbsent(name);
    }

    /**
     * Whether schema changes the session made (DDL) wait to be read from the data sources when it is next outside a
     * transaction ({@link #idle}): what ends its transaction must then run where it may wait.
     */
    public boolean refreshPending() {
        return changedTables != null || changedTypes || changedViews || changedSequences;
    }

    /**
     * {@link #adjust} for a statement an event loop runs itself, which must not wait: null where the plan's logical
     * state would ask a data source (a table neither the rules nor the schema know, looked up), or where schema changes
     * of the session wait to be taken in ({@link #idle}). The session's thread does those.
     */
    public Plan adjustOnLoop(Plan plan) throws StatementFailure {
        if (refreshPending()) {
            return null;
        }
        LogicalPlan state = state(plan, false);
        if (state == null || state.sessionViews()) {
            return null; // a view of the session's own objects is answered on the session's thread
        }
        if (state.plain()) {
            return plan;
        }
        // (No DDL of the session waits to be read again here: no written-out column list to refuse, as adjust does.)
        Plan result = state.withColumns() != null ? state.withColumns() : plan;
        if (state.sessionValues() && !result.statement().sessionValues().isEmpty()) {
            result = database.plans().get(answers.answered(result.statement()));
        }
        return result == plan || state(result, false) != null ? result : null;
    }

    /**
     * {@link #fromCatalog} for a statement an event loop runs itself, whose state {@link #adjustOnLoop} made: true too
     * where the state would have to be made anew now (the schema changed meanwhile), which the session's thread does.
     */
    public boolean fromCatalogOrUnknownOnLoop(Plan plan) {
        LogicalPlan state = state(plan, false);
        return state == null || plan.sequence() == null && state.catalogQuery() && database.catalog().catalogDataSource() != null;
    }

    /**
     * {@link #logical(StatementFailure)} on an event loop: the catalog forgets the names it found absent on another
     * thread (it may wait there for a refresh that reads the data sources through this loop).
     */
    public StatementFailure logicalOnLoop(StatementFailure failure) {
        LogicalCatalog catalog = database.catalog();
        if (failure.fields().sqlState().equals("42P01")) {
            Thread.ofVirtual().name("ashlar-forget-absent").start(catalog::forgetAbsent);
        }
        ErrorFields fields = catalog.schema().logical(failure.fields());
        return fields == failure.fields() ? failure : new StatementFailure(fields, failure.getCause());
    }

    /** The statement with its columns written out ({@link ColumnLists}), or null. */
    private Plan withColumns(AnalyzedStatement statement, LogicalSchema schema) {
        String text = ColumnLists.written(statement, schema, database.rules());
        if (text == null) {
            return null;
        }
        try {
            return database.plans().get(text);
        } catch (SqlSyntaxException e) {
            return null;
        }
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
        Seen[] known = seen;
        if (known == null) {
            known = new Seen[COLUMN_SLOTS];
            seen = known;
        }
        int slot = System.identityHashCode(columns) & (COLUMN_SLOTS - 1);
        long version = schema.version();
        Seen last = known[slot];
        if (last != null && last.columns == columns && last.dataSource == dataSource && last.version == version) {
            return last.logical;
        }
        ColumnDescription[] result = schema.logicalColumns(dataSource, columns);
        known[slot] = new Seen(columns, result, dataSource, version);
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

    /** A backend's error (of a row of a batch) in logical names. */
    public ErrorFields logical(ErrorFields error) {
        return database.catalog().schema().logical(error);
    }

    /** A COPY whose errors name logical tables. */
    public CopyStream logical(CopyStream stream) {
        return LogicalCopyStream.of(stream, database.catalog().schema());
    }

    /** One notice of a data source in logical names (one that came after a result's first rows). */
    public ErrorFields logicalNotice(ErrorFields notice) {
        LogicalSchema schema = database.catalog().schema();
        return schema.renamesTables() ? schema.logical(notice) : notice;
    }

    /** Notices in logical names, those that became identical (one per actual table) once. */
    private static List<ErrorFields> logicalNotices(LogicalSchema schema, List<ErrorFields> notices) {
        boolean renames = schema.renamesTables();
        if (!renames && notices.size() < 2 && !isDropCascade(notices.get(0))) {
            return notices;
        }
        List<ErrorFields> result = new ArrayList<>(notices.size());
        boolean changed = false;
        for (ErrorFields each : notices) {
            ErrorFields renamed = renames ? schema.logical(each) : each;
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
        changed |= mergeDropCascades(result);
        return changed ? result : notices;
    }

    private static final String DROP_CASCADES = "drop cascades to ";

    private static boolean isDropCascade(ErrorFields notice) {
        return notice.sqlState().equals("00000") && notice.message().startsWith(DROP_CASCADES);
    }

    /**
     * The notices of DROP ... CASCADE (one per data source, each listing the objects it dropped there, an object of a
     * logical table once per actual table) as one notice that names each object once, in PostgreSQL's words: {@code
     * drop cascades to <object>} for one, {@code drop cascades to <n> other objects} with a DETAIL line each for more.
     *
     * @return whether {@code notices} changed
     */
    public static boolean mergeDropCascades(List<ErrorFields> notices) {
        int first = -1;
        int count = 0;
        Set<String> objects = new LinkedHashSet<>();
        int listed = 0;
        for (int i = 0; i < notices.size(); i++) {
            ErrorFields each = notices.get(i);
            if (!isDropCascade(each)) {
                continue;
            }
            first = first < 0 ? i : first;
            count++;
            String message = each.message();
            String detail = each.field('D');
            if (message.endsWith(" other objects") && detail.startsWith(DROP_CASCADES)) {
                for (String line : detail.split("\n")) {
                    if (!line.startsWith(DROP_CASCADES)) {
                        return false; // "and 150 other objects (see server log for list)": not all named, left as they are
                    }
                    objects.add(line.substring(DROP_CASCADES.length()));
                    listed++;
                }
            } else {
                objects.add(message.substring(DROP_CASCADES.length()));
                listed++;
            }
        }
        if (first < 0 || count == 1 && listed == objects.size()) {
            return false;
        }
        ErrorFields template = notices.get(first);
        ErrorFields merged;
        if (objects.size() == 1) {
            List<Byte> codes = new ArrayList<>();
            List<String> values = new ArrayList<>();
            for (int i = 0; i < template.codes().length; i++) {
                if (template.codes()[i] != 'D') {
                    codes.add(template.codes()[i]);
                    values.add(template.codes()[i] == 'M' ? DROP_CASCADES + objects.iterator().next() : template.values()[i]);
                }
            }
            byte[] codeArray = new byte[codes.size()];
            for (int i = 0; i < codeArray.length; i++) {
                codeArray[i] = codes.get(i);
            }
            merged = new ErrorFields(codeArray, values.toArray(new String[0]));
        } else {
            StringBuilder detail = new StringBuilder();
            for (String each : objects) {
                detail.append(detail.isEmpty() ? "" : "\n").append(DROP_CASCADES).append(each);
            }
            merged = template.withField('M', DROP_CASCADES + objects.size() + " other objects");
            merged = merged.field('D').isEmpty() ? withDetail(merged, detail.toString()) : merged.withField('D', detail.toString());
        }
        for (int i = notices.size() - 1; i > first; i--) {
            if (isDropCascade(notices.get(i))) {
                notices.remove(i);
            }
        }
        notices.set(first, merged);
        return true;
    }

    /** {@code fields} with a DETAIL added after its message. */
    private static ErrorFields withDetail(ErrorFields fields, String detail) {
        byte[] codes = new byte[fields.codes().length + 1];
        String[] values = new String[codes.length];
        int j = 0;
        for (int i = 0; i < fields.codes().length; i++) {
            codes[j] = fields.codes()[i];
            values[j++] = fields.values()[i];
            if (fields.codes()[i] == 'M') {
                codes[j] = 'D';
                values[j++] = detail;
            }
        }
        return new ErrorFields(codes, values);
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
            if (TYPE_OBJECTS.contains(ddl.objectType())) {
                changedTypes = true;
                return false;
            }
            if (ddl.objectType().equals(VIEW)) {
                changedViews = true;
                return false;
            }
            if (ddl.objectType().equals(SEQUENCE)) {
                changedSequences = true;
                return false;
            }
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

    /**
     * Whether a DDL statement changes what the catalog database holds (tables, indexes, constraints, the user's types
     * and extensions, views, sequences): in a transaction block its catalog queries are to see it before the block ends.
     */
    public static boolean shapesCatalog(AnalyzedStatement statement) {
        if (!(statement.body() instanceof DdlStatement ddl)) {
            return false;
        }
        return switch (ddl.kind()) {
            case CREATE_TABLE, ALTER_TABLE, DROP_TABLE, CREATE_INDEX, ALTER_INDEX, DROP_INDEX -> true;
            case TRUNCATE_TABLE -> false;
            default -> TYPE_OBJECTS.contains(ddl.objectType()) || ddl.objectType().equals(VIEW) || ddl.objectType().equals(SEQUENCE);
        };
    }

    /**
     * Whether a DDL statement makes, changes or drops a type, domain or extension: it runs on the catalog database as
     * it passes, in or out of a transaction, so that the catalog's copies follow every change the data sources take
     * (renamed enum labels and types, dropped types, added attributes and domain constraints), which reading the
     * types again cannot tell from the types alone.
     */
    public static boolean changesTypes(AnalyzedStatement statement) {
        return statement.body() instanceof DdlStatement ddl && ddl.kind() != DdlKind.TRUNCATE_TABLE
                && TYPE_OBJECTS.contains(ddl.objectType());
    }

    /**
     * A statement of the session that is no DDL statement made types, domains or extensions (a {@code DO} block that
     * only creates them): they are read again as after their DDL.
     */
    public void ranTypeDdl() {
        changedTypes = true;
    }

    /** The session is outside any transaction: what its DDL changed is read again. */
    public void idle() {
        if (changedTypes) {
            changedTypes = false;
            database.catalog().refreshTypes();
        }
        if (changedSequences) {
            // Before the tables' shells: a sequence their defaults call nextval of is then made with its definition.
            changedSequences = false;
            database.catalog().refreshSequences();
        }
        Set<String> tables = changedTables;
        if (tables != null) {
            changedTables = null;
            database.catalog().refresh(tables.contains(ALL) ? null : tables);
        }
        if (changedViews || tables != null) {
            // After the tables' shells (a view of a table the transaction made needs its shell), and after table DDL
            // (a shell made again took its views with it, and a renamed column or table changed their definitions).
            changedViews = false;
            database.catalog().refreshViews();
        }
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
