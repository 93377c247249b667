package io.ashlar.backend.session;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.metadata.ActualTable;
import io.ashlar.backend.metadata.ColumnMetadata;
import io.ashlar.backend.metadata.ConstraintMetadata;
import io.ashlar.backend.metadata.IndexMetadata;
import io.ashlar.backend.metadata.LogicalSchema;
import io.ashlar.backend.metadata.LogicalTable;
import io.ashlar.backend.metadata.ProxyForeignKey;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.RouteValues;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.Assignment;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.DeleteStatement;
import io.ashlar.parser.statement.ForeignKey;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.InsertValue;
import io.ashlar.parser.statement.InsertValueKind;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.ParameterValue;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.parser.statement.UpdateStatement;
import io.ashlar.parser.statement.ValuesRow;
import io.ashlar.rewrite.template.Identifiers;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import io.ashlar.route.RouteUnit;
import io.ashlar.route.UnreadableValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Foreign keys whose rows may lie on different data sources, enforced by the proxy as PostgreSQL's RI triggers
 * enforce a key inside one database (ri_triggers.c), with NO ACTION semantics; the keys are recorded on the data
 * sources ({@link ProxyForeignKey}).
 * <ul>
 * <li>{@code ALTER TABLE child ADD [CONSTRAINT n] FOREIGN KEY (..) REFERENCES parent (..)}, which the route refuses
 * because the rows may be on different data sources: the referenced columns must carry a unique constraint (42830);
 * every existing non-null key must be in the parent (23503); then each actual table of the child gets the key's
 * placeholder. ON DELETE/UPDATE actions, DEFERRABLE and MATCH FULL are refused with 0A000.</li>
 * <li>A write to the child (INSERT ... VALUES, UPDATE setting the key's columns, a client's batch of either): before
 * it, each new non-null key is looked up in the parent's actual table that routes it, locked FOR KEY SHARE, on the
 * session's connection of that data source inside the session's transaction, all keys for one actual table in one
 * statement (ri_triggers.c's {@code SELECT 1 FROM ONLY pk x WHERE pkcol = $1 FOR KEY SHARE OF x}). A key not found:
 * 23503 with PostgreSQL's message, and the statement has no effect.</li>
 * <li>A DELETE from the parent, or an UPDATE of its referenced columns: the keys the write removes are read first
 * (FOR UPDATE); after the write, each child actual table is asked whether a row still references one of them. Found:
 * 23503, and the statement has no effect. TRUNCATE and DROP TABLE of a parent without its child fail as PostgreSQL's
 * do; DROP TABLE ... CASCADE drops the key first.</li>
 * </ul>
 * A statement the proxy cannot know the new keys of before it writes (INSERT ... SELECT, DEFAULT or an expression in a
 * key column, an UPDATE setting part of the key or to an expression) is refused with 0A000 naming the key.
 *
 * <p>Locks: a child write holds FOR KEY SHARE on the parent row until it commits; a parent DELETE or key UPDATE takes
 * FOR UPDATE on it, so it waits for such a writer and then sees its committed row, or the writer waits for it and then
 * finds the row gone. The data sources where a transaction took such locks commit after the others it wrote to, and
 * those it only read from last ({@link ShardConnections#endJoined}, {@link PreparedCommit}), so that the lock is not
 * released before the row it protects is visible.
 *
 * <p>State: none (the keys are in the logical schema's snapshot).
 */
final class ShardedForeignKeys {

    /** What the checks need of their session. */
    interface Session {
        /** Runs a statement as is on one data source, in the session's transaction; its result is buffered. */
        QueryResult onSlot(int slot, String sql) throws StatementFailure;

        /** Runs a statement as the session runs any (routed, merged), in the session's transaction. */
        QueryResult query(Plan plan, ParameterValues parameters) throws StatementFailure;

        /** A parent row is held FOR KEY SHARE on this data source: the transaction commits there after the others. */
        void keyLocked(int slot);

        /** Runs the client's write as routed. */
        QueryResult write(Plan plan, ParameterValues parameters, int[] routeTypes, ResultSink sink) throws StatementFailure;

        /** Opens an implicit transaction when none is in force; whether it did. */
        boolean beginImplicit();

        /** A statement failed: the transaction fails, an implicit one the statement opened rolls back. */
        void failed(boolean startedImplicit);

        /** Commits the implicit transaction this statement opened. */
        void commitImplicit(ResultSink sink) throws StatementFailure;

        /** DDL changed these logical tables: they are read again. */
        void ranDdl(AnalyzedStatement statement);

        /**
         * The logical tables {@code tables} ({@code schema.name}) as the session's transaction sees them (with what it made
         * and has not committed), by {@code schema.name}; empty when no transaction is in force (the schema's are current).
         */
        default Map<String, LogicalTable> readInTransaction(List<String> tables) throws StatementFailure {
            return Map.of();
        }

        /** Whether a transaction (a block, or an implicit one of several statements) is in force. */
        default boolean inTransaction() {
            return false;
        }

        /** The charset of the session's client_encoding: its parameters' and rows' text is in it. */
        default java.nio.charset.Charset text() {
            return StandardCharsets.UTF_8;
        }
    }

    private static final RouteEngine ROUTER = new RouteEngine();

    /** Keys per check statement when existing rows are validated. */
    private static final int VALIDATION_BATCH = 1000;

    private final LogicalDatabase database;
    private final Session session;
    /**
     * The query whose route finds the parent's actual table for a key's values, by the key's referenced columns list
     * (the instance: one per key of a schema snapshot).
     */
    private final Map<List<String>, String> routeSql = new java.util.IdentityHashMap<>();

    ShardedForeignKeys(LogicalDatabase database, Session session) {
        this.database = database;
        this.session = session;
    }

    // ------------------------------------------------------------------ writes

    /** Whether the statement may need checks: it writes to, truncates or drops a table of a key the proxy enforces. */
    static boolean concerns(LogicalSchema schema, AnalyzedStatement statement) {
        if (!schema.hasProxyForeignKeys()) {
            return false;
        }
        switch (statement.kind()) {
            case INSERT, UPDATE, DELETE, DDL -> {
                for (TableReference each : statement.tables()) {
                    if (each.role() == TableRole.DML_TARGET || each.role() == TableRole.DDL_TARGET) {
                        String name = qualified(each);
                        if (!schema.referencing(name).isEmpty() || !schema.referencedBy(name).isEmpty()) {
                            return true;
                        }
                    }
                }
                return false;
            }
            default -> {
                return false;
            }
        }
    }

    /** Runs a write with its checks; null when it needs none (it runs as routed). */
    QueryResult run(Plan plan, ParameterValues parameters, int[] routeTypes, ResultSink sink) throws StatementFailure {
        AnalyzedStatement statement = plan.statement();
        LogicalSchema schema = database.catalog().schema();
        if (statement.body() instanceof DdlStatement ddl) {
            return ddl(plan, ddl, schema, parameters, routeTypes, sink);
        }
        TableReference target = target(statement);
        if (target == null) {
            return null;
        }
        String table = qualified(target);
        List<ProxyForeignKey> asChild = schema.referencing(table);
        List<ProxyForeignKey> asParent = statement.body() instanceof InsertStatement ? List.of() : parentKeysTouched(statement, schema.referencedBy(table));
        if (statement.body() instanceof InsertStatement insert) {
            for (ProxyForeignKey key : schema.referencedBy(table)) {
                if (updatesOnConflict(statement, insert, key.parentColumns())) {
                    throw new StatementFailure(ErrorFields.error("0A000", "INSERT ... ON CONFLICT DO UPDATE of " + target.name().name()
                            + " setting referenced columns is not supported: they are referenced by foreign key " + key.name()
                            + ", which the proxy enforces across data sources", "update the referenced columns with UPDATE"));
                }
            }
        }
        List<ChildKeys> childChecks = new ArrayList<>(asChild.size());
        RouteValues values = new RouteValues(parameters, routeTypes, session.text());
        for (ProxyForeignKey key : asChild) {
            ChildKeys keys = childKeys(statement, key, schema, List.of(parameters), List.of(values));
            if (keys != null) {
                childChecks.add(keys);
            }
        }
        if (childChecks.isEmpty() && asParent.isEmpty()) {
            return null;
        }
        return inTransaction(sink, () -> {
            ErrorFields missing = null;
            for (ChildKeys each : childChecks) {
                missing = missing != null ? missing : lookUpParents(each, schema);
            }
            boolean deferred = statement.body() instanceof UpdateStatement
                    || statement.body() instanceof InsertStatement insert && insert.onConflict().isPresent();
            if (missing != null && !deferred) {
                throw new StatementFailure(missing);
            }
            List<List<String>> removed = new ArrayList<>();
            for (ProxyForeignKey key : asParent) {
                removed.add(preRead(plan, target, key, parameters));
            }
            QueryResult result = buffered(session.write(plan, parameters, routeTypes, sink));
            if (missing != null && rowCount(result.tag()) > 0) {
                throw new StatementFailure(missing);
            }
            for (int k = 0; k < asParent.size(); k++) {
                ProxyForeignKey key = asParent.get(k);
                List<String> gone = statement.body() instanceof UpdateStatement ? stillGone(key, removed.get(k)) : removed.get(k);
                ErrorFields referenced = lookUpChildren(key, gone, schema);
                if (referenced != null) {
                    throw new StatementFailure(referenced);
                }
            }
            return result;
        });
    }

    /**
     * A client's batch of one INSERT or UPDATE: every row's keys are checked first, in one statement per parent
     * actual table; the batch then runs as a batch. Returns whether the checks opened an implicit transaction.
     *
     * @throws StatementFailure 23503 for a key not found (the batch does not run), 0A000 for keys not known before
     */
    boolean checkBatch(Plan plan, ParameterValues[] rows, int[] routeTypes) throws StatementFailure {
        AnalyzedStatement statement = plan.statement();
        LogicalSchema schema = database.catalog().schema();
        TableReference target = target(statement);
        if (target == null) {
            return false;
        }
        List<ParameterValues> parameters = Arrays.asList(rows);
        List<RouteParameters> values = new ArrayList<>(rows.length);
        for (ParameterValues each : rows) {
            values.add(new RouteValues(each, routeTypes, session.text()));
        }
        List<ChildKeys> checks = new ArrayList<>();
        for (ProxyForeignKey key : schema.referencing(qualified(target))) {
            ChildKeys keys = childKeys(statement, key, schema, parameters, values);
            if (keys != null) {
                checks.add(keys);
            }
        }
        if (checks.isEmpty()) {
            return false;
        }
        boolean startedImplicit = session.beginImplicit();
        try {
            for (ChildKeys each : checks) {
                ErrorFields missing = lookUpParents(each, schema);
                if (missing != null) {
                    throw new StatementFailure(missing);
                }
            }
        } catch (StatementFailure failure) {
            session.failed(startedImplicit);
            throw failure;
        }
        return startedImplicit;
    }

    /** Work of a statement whose checks and writes go in one transaction. */
    private interface Work<T> {
        T run() throws StatementFailure;
    }

    /**
     * Runs {@code work} in the session's transaction, or in an implicit one opened for it when the session is idle
     * (committed after it, to {@code sink}); a failure ends what was opened and goes on to the caller.
     */
    private <T> T inTransaction(ResultSink sink, Work<T> work) throws StatementFailure {
        boolean startedImplicit = session.beginImplicit();
        try {
            T result = work.run();
            if (startedImplicit) {
                session.commitImplicit(sink);
            }
            return result;
        } catch (StatementFailure failure) {
            session.failed(startedImplicit);
            throw failure;
        }
    }

    /** COPY FROM into the referencing table of a key the proxy enforces: refused, the rows' keys are not looked at. */
    static void refuseCopy(LogicalSchema schema, AnalyzedStatement statement) throws StatementFailure {
        if (!schema.hasProxyForeignKeys()) {
            return;
        }
        for (TableReference each : statement.tables()) {
            List<ProxyForeignKey> keys = schema.referencing(qualified(each));
            if (!keys.isEmpty()) {
                throw new StatementFailure(ErrorFields.error("0A000", "COPY FROM into " + each.name().name() + " is not supported: foreign key "
                        + keys.get(0).name() + " is enforced by the proxy across data sources, and COPY's rows are not checked",
                        "load the rows with INSERT ... VALUES (a batch), or drop the key, load, and add it again (which validates the rows)"));
            }
        }
    }

    /** Whether a batch of this statement must go row by row (a parent's DELETE or key UPDATE, checked per statement). */
    static boolean batchNeedsRows(LogicalSchema schema, AnalyzedStatement statement) {
        TableReference target = target(statement);
        return target != null && !(statement.body() instanceof InsertStatement)
                && !parentKeysTouched(statement, schema.referencedBy(qualified(target))).isEmpty();
    }

    private static TableReference target(AnalyzedStatement statement) {
        int index = switch (statement.body()) {
            case InsertStatement insert -> insert.target();
            case UpdateStatement update -> update.target();
            case DeleteStatement delete -> delete.target();
            default -> -1;
        };
        return index < 0 ? null : statement.tables().get(index);
    }

    /** The keys referencing the target whose referenced values the statement may remove (DELETE, UPDATE of those columns). */
    private static List<ProxyForeignKey> parentKeysTouched(AnalyzedStatement statement, List<ProxyForeignKey> keys) {
        if (keys.isEmpty() || statement.body() instanceof DeleteStatement) {
            return keys;
        }
        List<ProxyForeignKey> result = new ArrayList<>(keys.size());
        if (statement.body() instanceof UpdateStatement update) {
            for (ProxyForeignKey key : keys) {
                if (assigns(update, key.parentColumns())) {
                    result.add(key);
                }
            }
        }
        return result;
    }

    private static boolean assigns(UpdateStatement update, List<String> columns) {
        for (Assignment each : update.assignments()) {
            for (String column : each.columns()) {
                if (columns.contains(column)) {
                    return true;
                }
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ the referencing side

    /** The new keys of one foreign key that a write to its referencing table makes, deduplicated. */
    private record ChildKeys(ProxyForeignKey key, List<List<String>> keys) {
    }

    /** The new non-null keys of {@code key} the statement writes, one list per row set; null when it writes none. */
    private ChildKeys childKeys(AnalyzedStatement statement, ProxyForeignKey key, LogicalSchema schema, List<ParameterValues> parameters,
                                List<RouteParameters> values) throws StatementFailure {
        LinkedHashSet<List<String>> result = new LinkedHashSet<>();
        String sql = statement.sql();
        if (statement.body() instanceof InsertStatement insert) {
            if (insert.rows().isEmpty()) {
                throw unknownKeys(key, insert.defaultValues() ? "INSERT ... DEFAULT VALUES" : "INSERT ... SELECT");
            }
            if (updatesOnConflict(statement, insert, key.columns())) {
                throw unknownKeys(key, "ON CONFLICT DO UPDATE setting its columns");
            }
            LogicalTable child = schema.table(key.table());
            List<String> order = new ArrayList<>();
            if (insert.columns().isEmpty()) {
                order.addAll(child.metadata().columnNames());
            } else {
                for (var each : insert.columns()) {
                    order.add(each.name());
                }
            }
            int[] positions = new int[key.columns().size()];
            for (int c = 0; c < positions.length; c++) {
                positions[c] = order.indexOf(key.columns().get(c));
                if (positions[c] < 0 && hasDefault(child, key.columns().get(c))) {
                    throw unknownKeys(key, "the default of column " + key.columns().get(c));
                }
            }
            for (int set = 0; set < parameters.size(); set++) {
                for (ValuesRow row : insert.rows()) {
                    List<String> one = new ArrayList<>(positions.length);
                    for (int position : positions) {
                        if (position < 0 || position >= row.values().size()) {
                            one = null; // the column is NULL: MATCH SIMPLE checks nothing
                            break;
                        }
                        InsertValue value = row.values().get(position);
                        String text = switch (value.kind()) {
                            case LITERAL, PARAMETER -> text(value.value().orElseThrow(), parameters.get(set), values.get(set), key);
                            case DEFAULT -> {
                                if (hasDefault(child, key.columns().get(one.size()))) {
                                    throw unknownKeys(key, "DEFAULT in column " + key.columns().get(one.size()));
                                }
                                yield null;
                            }
                            case EXPRESSION -> {
                                String written = sql.substring(value.range().start(), value.range().end()).trim();
                                if (!written.equalsIgnoreCase("null")) {
                                    throw unknownKeys(key, "the expression " + written + " in column " + key.columns().get(one.size()));
                                }
                                yield null;
                            }
                        };
                        if (text == null) {
                            one = null;
                            break;
                        }
                        one.add(text);
                    }
                    if (one != null) {
                        result.add(one);
                    }
                }
            }
        } else if (statement.body() instanceof UpdateStatement update) {
            if (!assigns(update, key.columns())) {
                return null;
            }
            for (int set = 0; set < parameters.size(); set++) {
                List<String> one = new ArrayList<>(key.columns().size());
                for (String column : key.columns()) {
                    Assignment assignment = assignment(update, column);
                    if (assignment == null) {
                        throw unknownKeys(key, "UPDATE setting some of its columns (set all of " + String.join(", ", key.columns()) + ")");
                    }
                    String text;
                    if (assignment.value().isPresent() && assignment.columns().size() == 1) {
                        text = text(assignment.value().get(), parameters.get(set), values.get(set), key);
                    } else {
                        String written = sql.substring(assignment.valueRange().start(), assignment.valueRange().end()).trim();
                        if (!written.equalsIgnoreCase("null")) {
                            throw unknownKeys(key, "the expression " + written + " set to column " + column);
                        }
                        text = null;
                    }
                    if (text == null) {
                        one = null;
                        break;
                    }
                    one.add(text);
                }
                if (one != null) {
                    result.add(one);
                }
            }
        } else {
            return null;
        }
        return result.isEmpty() ? null : new ChildKeys(key, new ArrayList<>(result));
    }

    /** Whether the INSERT's ON CONFLICT DO UPDATE names one of the columns after its SET. */
    private static boolean updatesOnConflict(AnalyzedStatement statement, InsertStatement insert, List<String> columns) {
        if (insert.onConflict().isEmpty()) {
            return false;
        }
        String clause = statement.sql().substring(insert.onConflict().get().start(), insert.onConflict().get().end()).toLowerCase(Locale.ROOT);
        int set = clause.indexOf("do update");
        if (set < 0) {
            return false;
        }
        for (String each : columns) {
            if (clause.indexOf(each, set) >= 0) {
                return true;
            }
        }
        return false;
    }

    private static Assignment assignment(UpdateStatement update, String column) {
        for (Assignment each : update.assignments()) {
            if (each.columns().contains(column)) {
                return each;
            }
        }
        return null;
    }

    private static boolean hasDefault(LogicalTable table, String column) {
        for (ColumnMetadata each : table.metadata().columns()) {
            if (each.name().equals(column)) {
                return !each.defaultExpression().isEmpty() || !each.identity().isEmpty() || !each.generated().isEmpty();
            }
        }
        return false;
    }

    /** The text of a literal or parameter value, as PostgreSQL would read it; null for SQL NULL. */
    private String text(SqlValue value, ParameterValues parameters, RouteParameters values, ProxyForeignKey key) throws StatementFailure {
        if (value instanceof LiteralValue literal) {
            return literal.value();
        }
        int index = ((ParameterValue) value).number() - 1;
        byte[] raw = index < parameters.values().length ? parameters.values()[index] : null;
        if (raw == null) {
            return null;
        }
        if (parameters.formats()[index] == 0) {
            return new String(raw, session.text());
        }
        Object read = values.value(index);
        if (read == null || read instanceof UnreadableValue) {
            throw unknownKeys(key, "a binary parameter of a type the proxy cannot read");
        }
        return read.toString();
    }

    private static StatementFailure unknownKeys(ProxyForeignKey key, String what) {
        return new StatementFailure(ErrorFields.error("0A000", "foreign key " + key.name() + " of " + ProxyForeignKey.unqualified(key.table())
                + " is enforced by the proxy across data sources, which must know the new key before the write: " + what
                + " is not supported", "write the key's values as literals or parameters of INSERT ... VALUES or UPDATE ... SET"));
    }

    /**
     * Looks each key up in the parent's actual table that routes it, locked FOR KEY SHARE: one statement per actual
     * table. Returns PostgreSQL's 23503 for the first key not found, or null.
     */
    private ErrorFields lookUpParents(ChildKeys check, LogicalSchema schema) throws StatementFailure {
        ProxyForeignKey key = check.key();
        LogicalTable parent = schema.table(key.parent());
        if (parent == null) {
            throw new StatementFailure(ErrorFields.error("42P01", "relation \"" + ProxyForeignKey.unqualified(key.parent())
                    + "\" referenced by foreign key " + key.name() + " does not exist"));
        }
        return lookUpParents(check, parent);
    }

    /** The first key of {@code check} that {@code parent} does not have, as PostgreSQL reports it; null when all are there. */
    private ErrorFields lookUpParents(ChildKeys check, LogicalTable parent) throws StatementFailure {
        ProxyForeignKey key = check.key();
        String[] types = castTypes(parent, key.parentColumns());
        Map<ActualTable, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < check.keys().size(); i++) {
            for (ActualTable each : route(parent, key.parentColumns(), check.keys().get(i))) {
                groups.computeIfAbsent(each, k -> new ArrayList<>()).add(i);
            }
        }
        Set<Integer> found = new HashSet<>();
        for (Map.Entry<ActualTable, List<Integer>> group : groups.entrySet()) {
            List<Integer> indexes = group.getValue();
            for (int from = 0; from < indexes.size(); from += VALIDATION_BATCH) {
                List<Integer> part = indexes.subList(from, Math.min(indexes.size(), from + VALIDATION_BATCH));
                QueryResult rows = session.onSlot(group.getKey().dataSource(), lookUpSql(parent, group.getKey(), key, types, check.keys(), part));
                session.keyLocked(group.getKey().dataSource());
                while (rows.next()) {
                    found.add(Integer.parseInt(text(rows.row(), 0)));
                }
                rows.close();
            }
        }
        for (int i = 0; i < check.keys().size(); i++) {
            if (!found.contains(i)) {
                return notPresent(key, check.keys().get(i));
            }
        }
        return null;
    }

    /** {@code SELECT k.i FROM (VALUES (0, 'v'::type, ..), ..) k (i, c1, ..) JOIN ONLY parent p ON p.a = k.c1 .. FOR KEY SHARE OF p}. */
    private static String lookUpSql(LogicalTable parent, ActualTable actual, ProxyForeignKey key, String[] types, List<List<String>> keys,
                                    List<Integer> indexes) {
        StringBuilder sql = new StringBuilder("SELECT k.i FROM (VALUES ");
        for (int n = 0; n < indexes.size(); n++) {
            int i = indexes.get(n);
            sql.append(n == 0 ? "(" : ", (").append(i);
            List<String> one = keys.get(i);
            for (int c = 0; c < one.size(); c++) {
                sql.append(", ").append(SqlText.literal(one.get(c))).append("::").append(types[c]);
            }
            sql.append(')');
        }
        sql.append(") AS k (i");
        for (int c = 0; c < types.length; c++) {
            sql.append(", c").append(c);
        }
        sql.append(") JOIN ONLY ").append(actualName(parent, actual)).append(" p ON ");
        for (int c = 0; c < types.length; c++) {
            sql.append(c == 0 ? "" : " AND ").append("p.").append(Identifiers.write(key.parentColumns().get(c), false)).append(" = k.c").append(c);
        }
        return sql.append(" FOR KEY SHARE OF p").toString();
    }

    /** The parent's actual tables that may hold {@code values} of {@code columns}: the route's, or all. */
    private List<ActualTable> route(LogicalTable parent, List<String> columns, List<String> values) {
        String sql = routeSql.get(columns);
        if (sql == null) {
            StringBuilder text = new StringBuilder("SELECT 1 FROM ").append(Identifiers.write(parent.metadata().name(), false)).append(" WHERE ");
            for (int c = 0; c < columns.size(); c++) {
                text.append(c == 0 ? "" : " AND ").append(Identifiers.write(columns.get(c), false)).append(" = $").append(c + 1);
            }
            sql = text.toString();
            if (routeSql.size() >= 64) {
                routeSql.clear(); // keys of older schema snapshots
            }
            routeSql.put(columns, sql);
        }
        try {
            AnalyzedStatement statement = database.plans().get(sql).statement();
            RouteResult routed = ROUTER.route(statement, new RouteParameters() {
                @Override
                public int count() {
                    return values.size();
                }

                @Override
                public Object value(int index) {
                    String text = values.get(index);
                    Comparable<?> integer = RouteValues.integer(text);
                    return integer != null ? integer : text;
                }
            }, database.rules());
            List<ActualTable> result = new ArrayList<>(routed.units().size());
            for (RouteUnit unit : routed.units()) {
                String actual = unit.actualTable(parent.metadata().name());
                for (ActualTable each : parent.actualTables()) {
                    if (each.dataSourceName().equals(unit.dataSource()) && each.table().equals(actual)) {
                        result.add(each);
                    }
                }
            }
            if (!result.isEmpty()) {
                return result;
            }
        } catch (RouteException | io.ashlar.parser.lexer.SqlSyntaxException | IllegalArgumentException e) {
            // every actual table, below
        }
        return parent.actualTables();
    }

    private static ErrorFields notPresent(ProxyForeignKey key, List<String> values) {
        String child = ProxyForeignKey.unqualified(key.table());
        return detailed("insert or update on table \"" + child + "\" violates foreign key constraint \"" + key.name() + "\"",
                "Key (" + String.join(", ", key.columns()) + ")=(" + String.join(", ", values) + ") is not present in table \""
                        + ProxyForeignKey.unqualified(key.parent()) + "\".", child, key.name());
    }

    /** A 23503 error with DETAIL, schema, table (the referencing one, as ri_ReportViolation names it) and constraint fields. */
    private static ErrorFields detailed(String message, String detail, String table, String constraint) {
        return new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'D', 's', 't', 'n'},
                new String[] {ErrorFields.ERROR, ErrorFields.ERROR, "23503", message, detail, "public", table, constraint});
    }

    // ------------------------------------------------------------------ the referenced side

    /** The referenced values of the rows the write may remove, read and locked FOR UPDATE before it; each row's values joined. */
    private List<String> preRead(Plan plan, TableReference target, ProxyForeignKey key, ParameterValues parameters) throws StatementFailure {
        AnalyzedStatement statement = plan.statement();
        for (TableReference each : statement.tables()) {
            if (each != target && each.block() == 0 && each.isAccess()) {
                throw new StatementFailure(ErrorFields.error("0A000", statement.command().toUpperCase(Locale.ROOT) + " of "
                        + target.name().name() + " naming other tables is not supported: " + target.name().name()
                        + " is referenced by foreign key " + key.name() + ", which the proxy enforces across data sources",
                        "name only " + target.name().name() + " in the statement"));
            }
        }
        var where = switch (statement.body()) {
            case DeleteStatement delete -> delete.where();
            case UpdateStatement update -> update.where();
            default -> java.util.Optional.<io.ashlar.parser.statement.SourceRange>empty();
        };
        boolean currentOf = statement.body() instanceof DeleteStatement delete ? delete.currentOf()
                : statement.body() instanceof UpdateStatement update && update.currentOf();
        if (currentOf) {
            throw new StatementFailure(ErrorFields.error("0A000", "WHERE CURRENT OF on " + target.name().name()
                    + " is not supported: it is referenced by foreign key " + key.name() + ", which the proxy enforces across data sources"));
        }
        String sql = statement.sql();
        StringBuilder select = new StringBuilder("SELECT ");
        String qualifier = target.alias().map(a -> Identifiers.write(a, false)).orElse(Identifiers.write(target.name().name(), false));
        for (int c = 0; c < key.parentColumns().size(); c++) {
            select.append(c == 0 ? "" : ", ").append(qualifier).append('.').append(Identifiers.write(key.parentColumns().get(c), false));
        }
        if (statement.body() instanceof UpdateStatement update) {
            // The SET values, unread, so that each parameter the UPDATE takes appears in the read with the type the
            // UPDATE gives it (a parameter of unspecified type only in SET would be one PostgreSQL cannot type).
            LogicalTable parent = database.catalog().schema().table(key.parent());
            for (Assignment each : update.assignments()) {
                String type = parent == null || each.columns().size() != 1 ? null : columnType(parent, each.columns().get(0));
                if (type != null) {
                    select.append(", CAST((").append(sql, each.valueRange().start(), each.valueRange().end()).append(") AS ").append(type).append(')');
                }
            }
        }
        select.append(" FROM ").append(sql, target.range().start(), target.range().end());
        target.alias().ifPresent(alias -> select.append(" AS ").append(Identifiers.write(alias, false)));
        where.ifPresent(range -> select.append(" WHERE ").append(sql, range.start(), range.end()));
        select.append(" FOR UPDATE");
        QueryResult rows = session.query(database.plans().get(select.toString()), statement.parameterCount() > 0 ? parameters : ParameterValues.NONE);
        List<String> result = new ArrayList<>();
        while (rows.next()) {
            String joined = joined(rows.row(), key.parentColumns().size());
            if (joined != null) {
                result.add(joined);
            }
        }
        rows.close();
        return result;
    }

    /** Of the keys an UPDATE changed, those no row of the parent has any more. */
    private List<String> stillGone(ProxyForeignKey key, List<String> before) throws StatementFailure {
        if (before.isEmpty()) {
            return before;
        }
        StringBuilder select = new StringBuilder("SELECT ").append(ProxyForeignKey.list(key.parentColumns())).append(" FROM ")
                .append(Identifiers.write(ProxyForeignKey.unqualified(key.parent()), false)).append(" WHERE (")
                .append(ProxyForeignKey.list(key.parentColumns())).append(") IN (");
        appendRows(select, before);
        QueryResult rows = session.query(database.plans().get(select.append(')').toString()), ParameterValues.NONE);
        Set<String> present = new HashSet<>();
        while (rows.next()) {
            present.add(joined(rows.row(), key.parentColumns().size()));
        }
        rows.close();
        List<String> result = new ArrayList<>(before.size());
        for (String each : before) {
            if (!present.contains(each)) {
                result.add(each);
            }
        }
        return result;
    }

    /** Asks every actual table of the child whether a row references one of {@code removed}; PostgreSQL's 23503 if one does. */
    private ErrorFields lookUpChildren(ProxyForeignKey key, List<String> removed, LogicalSchema schema) throws StatementFailure {
        if (removed.isEmpty()) {
            return null;
        }
        LogicalTable child = schema.table(key.table());
        if (child == null) {
            return null;
        }
        for (ActualTable actual : child.actualTables()) {
            for (int from = 0; from < removed.size(); from += VALIDATION_BATCH) {
                StringBuilder sql = new StringBuilder("SELECT ");
                for (int c = 0; c < key.columns().size(); c++) {
                    sql.append(c == 0 ? "" : ", ").append(Identifiers.write(key.columns().get(c), false)).append("::text");
                }
                sql.append(" FROM ONLY ").append(actualName(child, actual)).append(" WHERE (").append(ProxyForeignKey.list(key.columns()))
                        .append(") IN (");
                appendRows(sql, removed.subList(from, Math.min(removed.size(), from + VALIDATION_BATCH)));
                sql.append(") LIMIT 1");
                QueryResult rows = session.onSlot(actual.dataSource(), sql.toString());
                if (rows.next()) {
                    List<String> values = new ArrayList<>();
                    for (int c = 0; c < key.columns().size(); c++) {
                        values.add(text(rows.row(), c));
                    }
                    rows.close();
                    String parent = ProxyForeignKey.unqualified(key.parent());
                    String childName = ProxyForeignKey.unqualified(key.table());
                    return detailed("update or delete on table \"" + parent + "\" violates foreign key constraint \"" + key.name()
                            + "\" on table \"" + childName + "\"", "Key (" + String.join(", ", key.parentColumns()) + ")=("
                            + String.join(", ", values) + ") is still referenced from table \"" + childName + "\".", childName, key.name());
                }
                rows.close();
            }
        }
        return null;
    }

    /** Appends {@code ('a', 'b'), ('c', 'd')} for keys joined by {@link #joined}. */
    private static void appendRows(StringBuilder sql, List<String> keys) {
        for (int i = 0; i < keys.size(); i++) {
            sql.append(i == 0 ? "(" : ", (");
            String[] values = keys.get(i).split("\u0000", -1);
            for (int c = 0; c < values.length; c++) {
                sql.append(c == 0 ? "" : ", ").append(SqlText.literal(values[c]));
            }
            sql.append(')');
        }
    }

    /** A row's first {@code count} values joined by NUL (which no text value holds); null if one is NULL. */
    private String joined(RowValues row, int count) {
        StringBuilder result = new StringBuilder();
        for (int c = 0; c < count; c++) {
            String value = text(row, c);
            if (value == null) {
                return null;
            }
            result.append(c == 0 ? "" : "\u0000").append(value);
        }
        return result.toString();
    }

    // ------------------------------------------------------------------ DDL

    private QueryResult ddl(Plan plan, DdlStatement ddl, LogicalSchema schema, ParameterValues parameters, int[] routeTypes, ResultSink sink)
            throws StatementFailure {
        if (ddl.kind() != DdlKind.TRUNCATE_TABLE && ddl.kind() != DdlKind.DROP_TABLE) {
            return null;
        }
        AnalyzedStatement statement = plan.statement();
        Set<String> named = new HashSet<>();
        for (TableReference each : statement.tables()) {
            if (each.role() == TableRole.DDL_TARGET) {
                named.add(qualified(each));
            }
        }
        boolean cascade = statement.sql().strip().replaceAll(";+$", "").strip().toLowerCase(Locale.ROOT).endsWith("cascade");
        List<ProxyForeignKey> dropped = new ArrayList<>();
        Map<String, LogicalTable> seen = null;
        for (String table : named) {
            for (ProxyForeignKey key : schema.referencedBy(table)) {
                if (named.contains(key.table())) {
                    continue;
                }
                if (session.inTransaction()) {
                    // The transaction may have dropped the key (ALTER TABLE ... DROP CONSTRAINT earlier in it): as it sees it.
                    seen = seen != null ? seen : session.readInTransaction(List.copyOf(childTables(schema, named)));
                    if (!hasKey(seen.get(key.table()), key.name())) {
                        continue;
                    }
                }
                String parent = ProxyForeignKey.unqualified(key.parent());
                String child = ProxyForeignKey.unqualified(key.table());
                if (ddl.kind() == DdlKind.TRUNCATE_TABLE) {
                    throw new StatementFailure(new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'D', 'H'}, new String[] {ErrorFields.ERROR,
                            ErrorFields.ERROR, "0A000", "cannot truncate a table referenced in a foreign key constraint",
                            "Table \"" + child + "\" references \"" + parent + "\".", cascade
                                    ? "TRUNCATE ... CASCADE of a table referenced by a foreign key the proxy enforces across data sources is not supported; truncate table \""
                                    + child + "\" at the same time."
                                    : "Truncate table \"" + child + "\" at the same time, or use TRUNCATE ... CASCADE."}));
                }
                if (!cascade) {
                    throw new StatementFailure(new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'D', 'H'}, new String[] {ErrorFields.ERROR,
                            ErrorFields.ERROR, "2BP01", "cannot drop table " + parent + " because other objects depend on it",
                            "constraint " + key.name() + " on table " + child + " depends on table " + parent,
                            "Use DROP ... CASCADE to drop the dependent objects too."}));
                }
                dropped.add(key);
            }
        }
        if (dropped.isEmpty()) {
            return null;
        }
        return inTransaction(sink, () -> {
            for (ProxyForeignKey key : dropped) {
                String drop = "ALTER TABLE " + Identifiers.write(ProxyForeignKey.unqualified(key.table()), false) + " DROP CONSTRAINT "
                        + Identifiers.write(key.name(), false);
                Plan dropPlan = database.plans().get(drop);
                session.query(dropPlan, ParameterValues.NONE).close();
                session.ranDdl(dropPlan.statement());
            }
            return buffered(session.write(plan, parameters, routeTypes, sink));
        });
    }

    /** The tables whose keys the schema says reference one of {@code parents}. */
    private static Set<String> childTables(LogicalSchema schema, Set<String> parents) {
        Set<String> result = new java.util.LinkedHashSet<>();
        for (String each : parents) {
            for (ProxyForeignKey key : schema.referencedBy(each)) {
                result.add(key.table());
            }
        }
        return result;
    }

    /** Whether {@code table} (null when it does not exist) has a key the proxy enforces named {@code name}. */
    private static boolean hasKey(LogicalTable table, String name) {
        if (table == null) {
            return false;
        }
        for (ConstraintMetadata each : table.metadata().constraints()) {
            if (each.enforcedByProxy() && each.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * ALTER TABLE child ADD [CONSTRAINT name] FOREIGN KEY (..) REFERENCES parent (..) of a key the route refused because
     * its rows may be on different data sources: checked, validated and recorded on the child's actual tables, in one
     * transaction.
     */
    QueryResult add(Plan plan, ForeignKey foreignKey, String refusal, ResultSink sink) throws StatementFailure {
        AnalyzedStatement statement = plan.statement();
        if (!(statement.body() instanceof DdlStatement ddl) || ddl.kind() != DdlKind.ALTER_TABLE || ddl.foreignKeys().size() != 1
                || !oneAction(statement.sql())) {
            throw new StatementFailure(ErrorFields.error("0A000", refusal, "ALTER TABLE child ADD FOREIGN KEY (...) REFERENCES parent (...)"
                    + " in a statement of its own makes a key the proxy enforces across data sources"));
        }
        if (!foreignKey.options().isEmpty()) {
            throw new StatementFailure(ErrorFields.error("0A000", "foreign key " + describe(statement, foreignKey) + " with "
                    + String.join(" ", foreignKey.options()) + " is not supported: its rows may be on different data sources, and the proxy"
                    + " enforces such a key with PostgreSQL's NO ACTION / RESTRICT checks only, at the end of each statement",
                    "leave out " + String.join(", ", foreignKey.options()) + ", or leave the constraint out"));
        }
        LogicalSchema schema = database.catalog().schema();
        TableReference childRef = statement.tables().get(foreignKey.table());
        TableReference parentRef = statement.tables().get(foreignKey.referencedTable());
        // In a transaction, either table may be one it made or changed (a Django or Rails migration makes both tables,
        // then adds the key): read as it sees them, through its own connections; the schema learns them at the commit.
        Map<String, LogicalTable> seen = session.inTransaction()
                ? session.readInTransaction(List.of(qualified(childRef), qualified(parentRef))) : null;
        LogicalTable child = seen != null ? seen.get(qualified(childRef)) : schema.table(qualified(childRef));
        LogicalTable parent = seen != null ? seen.get(qualified(parentRef)) : schema.table(qualified(parentRef));
        if (child == null || parent == null) {
            String missing = (child == null ? childRef : parentRef).name().name();
            throw new StatementFailure(ErrorFields.error("42P01", "relation \"" + missing + "\" does not exist"));
        }
        for (String column : foreignKey.columns()) {
            if (!child.metadata().columnNames().contains(column)) {
                throw new StatementFailure(ErrorFields.error("42703", "column \"" + column + "\" referenced in foreign key constraint does not exist"));
            }
        }
        for (String column : foreignKey.referencedColumns()) {
            if (!parent.metadata().columnNames().contains(column)) {
                throw new StatementFailure(ErrorFields.error("42703", "column \"" + column + "\" referenced in foreign key constraint does not exist"));
            }
        }
        if (foreignKey.columns().size() != foreignKey.referencedColumns().size()) {
            throw new StatementFailure(ErrorFields.error("42830", "number of referencing and referenced columns for foreign key disagree"));
        }
        if (!unique(parent, foreignKey.referencedColumns())) {
            throw new StatementFailure(ErrorFields.error("42830", "there is no unique constraint matching given keys for referenced table \""
                    + parent.metadata().name() + "\""));
        }
        String name = foreignKey.name().isEmpty() ? defaultName(child.metadata().name(), foreignKey.columns()) : foreignKey.name();
        ProxyForeignKey key = new ProxyForeignKey(name, child.qualifiedName(), foreignKey.columns(), parent.qualifiedName(),
                foreignKey.referencedColumns());
        inTransaction(sink, () -> {
            // The placeholder first: its ACCESS EXCLUSIVE lock keeps the child's rows still while they are validated
            // (PostgreSQL takes SHARE ROW EXCLUSIVE on both tables); the parent's actual tables are locked likewise.
            for (ActualTable each : child.actualTables()) {
                session.onSlot(each.dataSource(), key.placeholder(actualName(child, each))).close();
            }
            for (ActualTable each : parent.actualTables()) {
                session.onSlot(each.dataSource(), "LOCK TABLE ONLY " + actualName(parent, each) + " IN SHARE ROW EXCLUSIVE MODE").close();
            }
            if (!foreignKey.notValid()) {
                validate(key, child, parent);
            }
            session.ranDdl(statement);
            return null;
        });
        database.plans().schemaChanged();
        return new TagResult("ALTER TABLE", new ArrayList<>(1));
    }

    /** Every existing non-null key of the child must be in the parent. */
    private void validate(ProxyForeignKey key, LogicalTable child, LogicalTable parent) throws StatementFailure {
        for (ActualTable actual : child.actualTables()) {
            StringBuilder sql = new StringBuilder("SELECT DISTINCT ");
            for (int c = 0; c < key.columns().size(); c++) {
                sql.append(c == 0 ? "" : ", ").append(Identifiers.write(key.columns().get(c), false)).append("::text");
            }
            sql.append(" FROM ONLY ").append(actualName(child, actual)).append(" WHERE ");
            for (int c = 0; c < key.columns().size(); c++) {
                sql.append(c == 0 ? "" : " AND ").append(Identifiers.write(key.columns().get(c), false)).append(" IS NOT NULL");
            }
            QueryResult rows = session.onSlot(actual.dataSource(), sql.toString());
            List<List<String>> keys = new ArrayList<>();
            while (rows.next()) {
                List<String> one = new ArrayList<>(key.columns().size());
                for (int c = 0; c < key.columns().size(); c++) {
                    one.add(text(rows.row(), c));
                }
                keys.add(one);
            }
            rows.close();
            if (!keys.isEmpty()) {
                ErrorFields missing = lookUpParents(new ChildKeys(key, keys), parent);
                if (missing != null) {
                    throw new StatementFailure(missing);
                }
            }
        }
    }

    /** Whether a primary key, unique constraint or unique index of the table has exactly these columns (in any order). */
    private static boolean unique(LogicalTable table, List<String> columns) {
        Set<String> wanted = new HashSet<>(columns);
        for (ConstraintMetadata each : table.metadata().constraints()) {
            if ((each.kind() == 'p' || each.kind() == 'u') && wanted.equals(columnsOf(each.definition()))) {
                return true;
            }
        }
        for (IndexMetadata each : table.metadata().indexes()) {
            String definition = each.definition();
            if (definition.startsWith("CREATE UNIQUE INDEX") && !definition.contains(" WHERE ") && wanted.equals(columnsOf(definition))) {
                return true;
            }
        }
        return false;
    }

    /** The names in the first parenthesised list of a definition ({@code PRIMARY KEY (a, b)}, {@code ... USING btree (a, b)}). */
    private static Set<String> columnsOf(String definition) {
        int open = definition.indexOf('(');
        int close = open < 0 ? -1 : definition.indexOf(')', open);
        Set<String> result = new HashSet<>();
        if (close < 0) {
            return result;
        }
        for (String each : definition.substring(open + 1, close).split(",")) {
            String name = each.strip();
            result.add(name.startsWith("\"") ? name.substring(1, name.length() - 1).replace("\"\"", "\"") : name);
        }
        return result;
    }

    /** PostgreSQL's name for an unnamed foreign key: table, columns and {@code fkey}, joined by underscores, within 63 bytes. */
    static String defaultName(String table, List<String> columns) {
        String result = table + "_" + String.join("_", columns);
        if (result.length() > 58) {
            result = result.substring(0, 58);
        }
        return result + "_fkey";
    }

    /** Whether an ALTER TABLE has one action: no comma outside parentheses and quotes. */
    private static boolean oneAction(String sql) {
        int depth = 0;
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                return false;
            }
        }
        return true;
    }

    private static String describe(AnalyzedStatement statement, ForeignKey key) {
        return statement.tables().get(key.table()).name().name() + " (" + String.join(", ", key.columns()) + ") referencing "
                + statement.tables().get(key.referencedTable()).name().name() + " (" + String.join(", ", key.referencedColumns()) + ")";
    }

    // ------------------------------------------------------------------ helpers

    private static String qualified(TableReference reference) {
        return reference.name().schema().orElse("public") + "." + reference.name().name();
    }

    private static String actualName(LogicalTable table, ActualTable actual) {
        return Identifiers.write(table.metadata().schema(), false) + "." + Identifiers.write(actual.table(), false);
    }

    /** A column's type as format_type prints it, or null. */
    private static String columnType(LogicalTable table, String column) {
        for (ColumnMetadata each : table.metadata().columns()) {
            if (each.name().equals(column)) {
                return each.type();
            }
        }
        return null;
    }

    /** The types the key's values are read as: the parent's columns' types without their modifiers (no cast truncates). */
    private static String[] castTypes(LogicalTable parent, List<String> columns) {
        String[] result = new String[columns.size()];
        for (int c = 0; c < result.length; c++) {
            String type = "text";
            for (ColumnMetadata each : parent.metadata().columns()) {
                if (each.name().equals(columns.get(c))) {
                    type = each.type().replaceAll("\\([^)]*\\)", "").replaceAll("\\s+", " ").strip();
                }
            }
            result[c] = switch (type) {
                case "character" -> "bpchar";
                case "bit" -> "varbit";
                default -> type;
            };
        }
        return result;
    }

    private String text(RowValues row, int column) {
        byte[] value = row.value(column);
        return value == null ? null : new String(value, session.text());
    }

    /** The affected row count of a command tag ({@code INSERT 0 3}, {@code UPDATE 2}); 0 if none. */
    private static long rowCount(String tag) {
        int space = tag.lastIndexOf(' ');
        try {
            return space < 0 ? 0 : Long.parseLong(tag.substring(space + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The result with its rows read into memory: more statements run on its connections before the client reads it. */
    private static QueryResult buffered(QueryResult result) throws StatementFailure {
        if (result instanceof BufferedResult) {
            return result;
        }
        BufferedResult copy = new BufferedResult();
        for (ErrorFields each : result.notices()) {
            copy.notice(each);
        }
        if (result.hasRows()) {
            ColumnDescription[] columns = result.columns();
            copy.columns(columns);
            io.ashlar.backend.execute.ArrayRowView view = new io.ashlar.backend.execute.ArrayRowView();
            while (result.next()) {
                RowValues row = result.row();
                byte[][] values = new byte[row.columnCount()][];
                for (int c = 0; c < values.length; c++) {
                    byte[] value = row.value(c);
                    values[c] = value == null ? null : value.clone();
                }
                copy.row(view.of(values));
            }
        }
        copy.complete(result.tag());
        result.close();
        return copy;
    }
}
