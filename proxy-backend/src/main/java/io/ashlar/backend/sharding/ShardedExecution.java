package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.datasource.UnitStream;
import io.ashlar.backend.datasource.UnitStreams;
import io.ashlar.merge.MemoryBudget;
import io.ashlar.merge.MergeContext;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.merge.value.TypeOids;
import io.ashlar.merge.RowCursor;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.IndexReference;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.rewrite.MergeTemplate;
import io.ashlar.rewrite.RewriteResult;
import io.ashlar.rewrite.RewrittenUnit;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteKind;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One execution of a statement on a sharded logical database: its route, the SQL for each unit,
 * and, once run, the one result the client sees. Units on different data sources run at the same
 * time: each data source gets its units in one write before any answer is read, all on the
 * caller's thread; units on the same data source run one after the other on that data source's
 * connection (a transaction holds one connection per data source).
 */
public final class ShardedExecution {

    private static final RouteEngine ROUTER = new RouteEngine();

    private final LogicalDatabase database;
    private final AnalyzedStatement statement;
    private final RouteResult route;
    private final RewriteResult rewrite;
    private final ParameterValues parameters;
    private final int[] dataSources;
    private final int[] unitDataSource;
    /** A CREATE FUNCTION or PROCEDURE over several data sources, whose body only {@link #checking} checks. */
    private final Optional<RoutineDefinition> routine;
    /** The data source that checks a routine's body: the default one. */
    private final int checking;
    private boolean shortestFloats = true;
    /** The session prints dates in ISO style: see {@link #run}. */
    public static final int ISO_DATES = 1;
    /** The session prints intervals in IntervalStyle postgres: see {@link #run}. */
    public static final int POSTGRES_INTERVALS = 2;
    private int mergeStyles = ISO_DATES | POSTGRES_INTERVALS;
    /** The charset of the connections' client_encoding (the session's): the text the merge compares is in it. */
    private java.nio.charset.Charset text = java.nio.charset.StandardCharsets.UTF_8;
    private boolean simpleProtocol;
    private boolean streamRows;
    /** The result format codes the units are asked for, or null (text): see {@link #clientFormats(short[])}. */
    private short[] unitFormats;
    /** What the statement may hold in memory (rows kept, in-memory merges); made per run. */
    private MemoryBudget budget;
    /** When an EXPLAIN over several units began (its ANALYZE reports the proxy's time); 0 for other statements. */
    private long explainStartedNanos;

    private ShardedExecution(LogicalDatabase database, AnalyzedStatement statement, RouteResult route,
                             RewriteResult rewrite, ParameterValues parameters) {
        this.database = database;
        this.statement = statement;
        this.route = route;
        this.rewrite = rewrite;
        this.parameters = parameters;
        List<RewrittenUnit> units = rewrite.units();
        this.unitDataSource = new int[units.size()];
        int[] distinct = new int[units.size()];
        int count = 0;
        for (int i = 0; i < units.size(); i++) {
            String name = units.get(i).unit().dataSource();
            int index = database.dataSourceIndex(name);
            if (index < 0) {
                throw new RouteException("XX000", "route to unknown data source " + name);
            }
            unitDataSource[i] = index;
            boolean seen = false;
            for (int j = 0; j < count; j++) {
                if (distinct[j] == index) {
                    seen = true;
                    break;
                }
            }
            if (!seen) {
                distinct[count++] = index;
            }
        }
        this.dataSources = java.util.Arrays.copyOf(distinct, count);
        this.routine = count > 1 ? RoutineDefinition.of(statement) : Optional.empty();
        // (Looked up only for a routine: a map look-up per statement otherwise.)
        this.checking = routine.isPresent() ? database.dataSourceIndex(database.defaultDataSource().name()) : -1;
    }

    /** Routes and rewrites a statement for one execution. */
    public static ShardedExecution plan(LogicalDatabase database, Plan plan, ParameterValues parameters,
                                        RouteParameters routeParameters) {
        AnalyzedStatement statement = plan.statement();
        RouteResult route = ROUTER.route(statement, routeParameters, database.rules());
        RewriteResult rewrite = plan.rewriter().rewrite(route, routeParameters);
        return new ShardedExecution(database, statement, route, rewrite, parameters);
    }

    /**
     * Where one data source and its SQL stand for the statement: a Describe, a COPY.
     *
     * @param merge how a multi-shard result is shaped (hidden columns, result types), when it is one
     */
    public record Target(int dataSource, String sql, Optional<MergeTemplate> merge) {
        Target(int dataSource, String sql) {
            this(dataSource, sql, Optional.empty());
        }

        /** The columns the client sees of the representative shard's columns. */
        public ColumnDescription[] visible(ColumnDescription[] columns) {
            if (merge.isEmpty()) {
                return columns;
            }
            int[] types = new int[columns.length];
            for (int i = 0; i < columns.length; i++) {
                types[i] = columns[i].typeOid();
            }
            return ShardedExecution.visible(columns, merge.get().visibleColumns(columns.length),
                    merge.get().resultTypes(types));
        }
    }

    /** The first unit of the statement routed with unknown parameter values: what a Describe asks. */
    public static Target representative(LogicalDatabase database, Plan plan, RouteParameters parameters) {
        RouteResult route = ROUTER.route(plan.statement(), parameters, database.rules());
        RewriteResult rewrite = plan.rewriter().rewrite(route, parameters);
        if (rewrite.units().isEmpty()) {
            return new Target(database.dataSourceIndex(database.defaultDataSource().name()), plan.statement().sql());
        }
        RewrittenUnit unit = rewrite.units().get(0);
        return new Target(database.dataSourceIndex(unit.unit().dataSource()), unit.sql(), rewrite.merge());
    }

    /** The one data source a COPY runs on; a COPY that would span several is refused. */
    public static Target copyTarget(LogicalDatabase database, Plan plan) {
        List<Target> units = copyUnits(database, plan);
        if (units.size() != 1) {
            throw new RouteException("0A000", "COPY of a table that spans several shards is not supported yet"
                    + " (the statement would run on " + units.size() + " shards)");
        }
        return units.get(0);
    }

    /** Every unit of a COPY, in route order: its data source and SQL. */
    public static List<Target> copyUnits(LogicalDatabase database, Plan plan) {
        RouteResult route = ROUTER.route(plan.statement(), RouteParameters.NONE, database.rules());
        RewriteResult rewrite = plan.rewriter().rewrite(route, RouteParameters.NONE);
        List<Target> result = new java.util.ArrayList<>(rewrite.units().size());
        for (RewrittenUnit unit : rewrite.units()) {
            result.add(new Target(database.dataSourceIndex(unit.unit().dataSource()), unit.sql()));
        }
        return result;
    }

    /**
     * Whether a query's rows over several shards are its units' rows one after another (nothing to sort, group or
     * cut).
     *
     * @throws RouteException the route's refusal of the query
     */
    public static boolean iteratesOnly(LogicalDatabase database, Plan query) {
        RouteResult route = ROUTER.route(query.statement(), RouteParameters.NONE, database.rules());
        RewriteResult rewrite = query.rewriter().rewrite(route, RouteParameters.NONE);
        return rewrite.units().size() <= 1 || rewrite.merge().isEmpty() || rewrite.merge().get().iteratesOnly();
    }

    /**
     * Whether the statement belongs to the session rather than to any table (SHOW, LISTEN,
     * statements the router leaves to the session): it then runs as is on the default data source.
     */
    public boolean isSession() {
        return rewrite.units().isEmpty();
    }

    /**
     * One row of a batch where the statement runs on exactly one unit: its data source, SQL and
     * parameters.
     */
    public record SingleUnit(int dataSource, String sql, ParameterValues parameters) {
    }

    /** The statement's one unit, or null when it runs on several (or belongs to the session). */
    public SingleUnit singleUnit() {
        if (unitDataSource.length != 1 || route.rowsStay() != null) {
            return null;
        }
        RewrittenUnit unit = rewrite.units().get(0);
        return new SingleUnit(unitDataSource[0], unit.sql(), unitParameters(unit));
    }

    /**
     * Units without parameters go to their backends as simple queries: for a client's simple
     * query, whose text (literals inlined) is seldom seen twice, that is cheaper for the backend
     * than a prepared statement used once.
     */
    public void useSimpleProtocol() {
        simpleProtocol = true;
        unitFormats = null;
    }

    /**
     * The result format codes of the client's Bind. When the statement runs as one unit, or as a read whose merge
     * reads no value (its units' rows one after another, a LIMIT or OFFSET at most), its backends are asked for them
     * and its rows go to the client as they were sent, binary included, for any type a backend can send in binary
     * ({@link QueryResult#rowFormats()}); where the merge reads values (to sort, group, aggregate) it reads text and
     * the frontend converts what the client asked for in binary.
     */
    public void clientFormats(short[] codes) {
        if (codes == null || simpleProtocol) {
            unitFormats = null;
        } else if (rewrite.units().size() == 1 || passesRowsOn()) {
            unitFormats = codes;
        } else {
            unitFormats = mergedFormats(codes);
        }
    }

    /**
     * The result format codes of a SELECT's units whose merge reads some of their columns, from the client's codes
     * given per column: binary where the client asked for it and no merge step reads the column (to sort, group,
     * aggregate or compare it), text for the rest and for the columns the merge adds; null (all text) when the client
     * gave one code for every column (the units' column count is not known before their answer), or when no column
     * would be binary.
     */
    private short[] mergedFormats(short[] codes) {
        Optional<MergeTemplate> merge = rewrite.merge();
        if (codes.length < 2 || statement.kind() != StatementKind.SELECT || merge.isEmpty()) {
            return null;
        }
        int total = codes.length + merge.get().derivedColumns();
        io.ashlar.merge.plan.MergePlan plan;
        try {
            plan = merge.get().plan(new int[total]); // the plan's columns do not depend on their types
        } catch (RouteException e) {
            return null; // the merge refuses the statement when it runs
        }
        boolean[] read = readColumns(plan, total);
        short[] result = new short[total];
        boolean binary = false;
        for (int i = 0; i < codes.length; i++) {
            if (codes[i] == 1 && !read[i]) {
                result[i] = 1;
                binary = true;
            }
        }
        return binary ? result : null;
    }

    /** The columns whose values a merge step reads: its keys, its aggregates' columns, every one for HAVING or DISTINCT. */
    private static boolean[] readColumns(io.ashlar.merge.plan.MergePlan plan, int total) {
        boolean[] read = new boolean[total];
        if (plan.having().isPresent() || plan.distinct()) {
            java.util.Arrays.fill(read, true);
            return read;
        }
        for (io.ashlar.merge.plan.SortKey each : plan.orderBy()) {
            mark(read, each.column());
        }
        for (io.ashlar.merge.plan.SortKey each : plan.groupBy()) {
            mark(read, each.column());
        }
        for (io.ashlar.merge.plan.Aggregate aggregate : plan.aggregates()) {
            mark(read, aggregate.column());
            switch (aggregate) {
                case io.ashlar.merge.plan.Aggregate.Avg avg -> {
                    mark(read, avg.sumColumn());
                    mark(read, avg.countColumn());
                }
                case io.ashlar.merge.plan.Aggregate.CountDistinct distinct -> mark(read, distinct.argumentColumn());
                case io.ashlar.merge.plan.Aggregate.SumDistinct distinct -> mark(read, distinct.argumentColumn());
                case io.ashlar.merge.plan.Aggregate.AvgDistinct distinct -> mark(read, distinct.argumentColumn());
                default -> { }
            }
        }
        return read;
    }

    private static void mark(boolean[] read, int column) {
        if (column >= 0 && column < read.length) {
            read[column] = true;
        }
    }

    /**
     * Whether the rows of several units reach the client as the units sent them: a SELECT whose merge reads none of
     * their values and adds no column (see {@link MergeTemplate#readsNoValues()}).
     */
    private boolean passesRowsOn() {
        if (statement.kind() != StatementKind.SELECT) {
            return false;
        }
        Optional<MergeTemplate> merge = rewrite.merge();
        return merge.isEmpty() || merge.get().readsNoValues();
    }

    /** The result format codes the units are asked for, or null (text): see {@link #clientFormats(short[])}. */
    private short[] unitFormats() {
        return unitFormats;
    }

    /**
     * The statement's rows go to the client as the backends send them ({@link UnitStreams}): for
     * a query whose result the session needs nothing from (no settings, no session state), which
     * changes no data. Everything else is read whole before its result is returned, within the
     * statement's memory budget.
     */
    public void streamRows() {
        streamRows = statement.kind() == StatementKind.SELECT && !isWrite();
    }

    /** Whether {@link #run} returns a result that still reads its backend connections. */
    public boolean streams() {
        return streamRows;
    }

    /** Logs the units as server.yaml's sql-show does (after the Logic SQL line). */
    public void show(io.ashlar.backend.metrics.StatementLog log) {
        List<RewrittenUnit> units = rewrite.units();
        if (log.simple()) {
            java.util.Set<String> names = new java.util.LinkedHashSet<>();
            for (RewrittenUnit each : units) {
                names.add(each.unit().dataSource());
            }
            log.actualSimple(names, units.size());
            return;
        }
        for (RewrittenUnit each : units) {
            log.actual(each.unit().dataSource(), each.sql(), unitParameters(each));
        }
    }

    /** Where the statement went, for the slow-query log: {@code ds_0 ::: SELECT ...; ds_1 ::: ...}. */
    public String describeUnits() {
        StringBuilder result = new StringBuilder();
        for (RewrittenUnit each : rewrite.units()) {
            if (!result.isEmpty()) {
                result.append("; ");
            }
            result.append(each.unit().dataSource()).append(" ::: ").append(each.sql());
        }
        return result.toString();
    }

    /** The data sources the statement needs, by index, in the order the units name them. */
    public int[] dataSources() {
        return dataSources;
    }

    public int unitCount() {
        return unitDataSource.length;
    }

    /**
     * Whether a unit of this UPDATE must change no row (its rows would belong on another shard): the statement then runs
     * in one transaction, which its failure undoes, even on one unit.
     */
    public boolean keepsRowsInPlace() {
        return route.rowsStay() != null;
    }

    /** Whether the statement changes data or schema (several units of it then run in one transaction). */
    public boolean isWrite() {
        RouteKind kind = route.kind();
        return kind == RouteKind.MULTI_WRITE || kind == RouteKind.BROADCAST_WRITE;
    }

    /**
     * Whether the statement cannot run inside a transaction block (VACUUM, CREATE INDEX
     * CONCURRENTLY, ...): its units then run one by one, each on its own.
     */
    public boolean refusesTransaction() {
        if (routine.isPresent()) {
            return false; // its body may say CONCURRENTLY; its data sources but one do not check the body
        }
        String command = statement.command();
        if (command.equals("vacuum") || command.equals("cluster") || command.equals("reindex")) {
            return true;
        }
        String sql = statement.sql();
        for (int i = 0, n = sql.length() - 12; i <= n; i++) {
            char c = sql.charAt(i);
            if ((c == 'c' || c == 'C') && sql.regionMatches(true, i, "concurrently", 0, 12)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A table this CREATE TABLE makes that no rule knows: it becomes a single table on the data
     * source it was created on.
     */
    private Optional<String> createdTable() {
        if (statement.kind() != StatementKind.DDL || !(statement.body() instanceof DdlStatement ddl)
                || ddl.kind() != DdlKind.CREATE_TABLE || route.units().size() != 1
                || !route.units().get(0).tables().isEmpty()) {
            return Optional.empty();
        }
        for (int i = 0; i < statement.tables().size(); i++) {
            if (statement.tables().get(i).role() == TableRole.DDL_TARGET) {
                String name = statement.tables().get(i).name().name();
                if (database.rules().find(name).isEmpty()) {
                    return Optional.of(name);
                }
            }
        }
        return Optional.empty();
    }

    /** Whether {@link #rulesAfter} may change the rules (a CREATE TABLE or CREATE INDEX). */
    public boolean changesRules() {
        return statement.kind() == StatementKind.DDL && statement.body() instanceof DdlStatement ddl
                && (ddl.kind() == DdlKind.CREATE_TABLE || ddl.kind() == DdlKind.CREATE_INDEX);
    }

    /**
     * The rules after this statement succeeded: a CREATE TABLE of a table no rule knows makes a
     * single table on the data source it ran on; a CREATE INDEX on a sharded table is remembered
     * so that a DROP INDEX naming no table finds its shards. The same rules when nothing changes.
     */
    public ShardingRules rulesAfter(ShardingRules rules) {
        if (statement.kind() != StatementKind.DDL || !(statement.body() instanceof DdlStatement ddl)) {
            return rules;
        }
        if (ddl.kind() == DdlKind.CREATE_TABLE) {
            Optional<String> created = createdTable();
            return created.isPresent()
                    ? rules.withSingleTable(created.get(), database.dataSources().get(dataSources[0]).name()) : rules;
        }
        if (ddl.kind() == DdlKind.CREATE_INDEX) {
            ShardingRules result = rules;
            for (IndexReference index : statement.indexes()) {
                if (!index.constraint() && index.table().isPresent()) {
                    String table = statement.tables().get(index.table().getAsInt()).name().name();
                    if (rules.find(table).isPresent()) {
                        result = result.withIndex(index.name().name(), table);
                    }
                }
            }
            return result;
        }
        return rules;
    }

    /** Whether the statement made state only its connection has (a temporary table). */
    public boolean boundSession() {
        return statement.kind() == StatementKind.DDL && CommandTags.mentionsTemporary(statement.sql());
    }

    /**
     * Runs every unit and makes the client's result.
     *
     * @param connections one per entry of {@link #dataSources()}
     * @param begin for each connection, whether its first statement opens the transaction
     * @param shortestFloats whether the session prints floats in their shortest exact form
     *        ({@code extra_float_digits} 1 or more, PostgreSQL 12's default); the merge computes
     *        float sums and averages only in that form
     * @param mergeStyles {@link #ISO_DATES} when the session prints dates in ISO style (DateStyle {@code ISO, ...}),
     *        {@link #POSTGRES_INTERVALS} when it prints intervals in IntervalStyle postgres: the merge reads dates,
     *        timestamps and intervals only in those styles
     */
    public QueryResult run(BackendConnection[] connections, boolean[] begin, boolean shortestFloats, int mergeStyles)
            throws StatementFailure {
        this.shortestFloats = shortestFloats;
        this.mergeStyles = mergeStyles;
        if (connections.length > 0 && connections[0] != null) {
            this.text = connections[0].textCharset();
        }
        this.budget = new MemoryBudget(database.statementMemoryLimit(), MEMORY_LIMIT_SETTING);
        if (streamRows) {
            return runStreamed(connections, begin);
        }
        List<RewrittenUnit> units = rewrite.units();
        if (statement.kind() == StatementKind.OTHER && units.size() > 1 && statement.command().equals("explain")) {
            explainStartedNanos = System.nanoTime();
        }
        BufferedResult[] results = new BufferedResult[units.size()];
        // Every data source gets its units in one write before any answer is read: the data
        // sources work at the same time, on the session's thread alone.
        List<List<Integer>> groups = new ArrayList<>(dataSources.length);
        BackendConnection.Sent[] sent = new BackendConnection.Sent[dataSources.length];
        // A routine's data sources but the checking one: check_function_bodies off ahead of its CREATE (RoutineDefinition).
        BufferedResult[] preludes = new BufferedResult[dataSources.length];
        for (int g = 0; g < dataSources.length; g++) {
            List<Integer> indexes = new ArrayList<>(2);
            for (int i = 0; i < units.size(); i++) {
                if (unitDataSource[i] == dataSources[g]) {
                    indexes.add(i);
                    results[i] = new BufferedResult(budget);
                }
            }
            groups.add(indexes);
            int first = 0;
            if (routine.isPresent() && dataSources[g] != checking) {
                preludes[g] = new BufferedResult(budget);
                first = 1;
            }
            BackendConnection.Statement[] statements = new BackendConnection.Statement[first + indexes.size()];
            if (first == 1) {
                statements[0] = new BackendConnection.Statement(RoutineDefinition.UNCHECKED, ParameterValues.NONE, true);
            }
            for (int k = 0; k < indexes.size(); k++) {
                statements[first + k] = statement(units.get(indexes.get(k)));
            }
            try {
                sent[g] = connections[g].send(statements, begin[g]);
            } catch (SQLException e) {
                results[indexes.get(0)].handleError(e);
            }
        }
        for (int g = 0; g < dataSources.length; g++) {
            List<Integer> indexes = groups.get(g);
            BufferedResult[] replies = new BufferedResult[indexes.size()];
            for (int k = 0; k < replies.length; k++) {
                replies[k] = results[indexes.get(k)];
            }
            if (sent[g] == null) {
                continue;
            }
            BufferedResult[] answers = replies;
            if (preludes[g] != null) {
                answers = new BufferedResult[replies.length + 1];
                answers[0] = preludes[g];
                System.arraycopy(replies, 0, answers, 1, replies.length);
            }
            try {
                connections[g].receive(sent[g], answers);
            } catch (SQLException e) {
                replies[replies.length - 1].handleError(e);
            }
            if (!begin[g] && connections[g].status() == 'I') {
                for (int k = 0; k < replies.length; k++) {
                    if (BackendConnection.isStalePlan(replies[k].error())) {
                        // Prepared before DDL changed its result: runs again (and is prepared again).
                        BufferedResult again = new BufferedResult(budget);
                        BackendConnection.Statement each = statement(units.get(indexes.get(k)));
                        try {
                            connections[g].execute(each.sql(), each.parameters(), each.bindFormats(), again, false);
                        } catch (SQLException e) {
                            again.handleError(e);
                        }
                        results[indexes.get(k)] = again;
                    }
                }
            }
        }
        if (routine.isPresent()) {
            checkRoutine(routine.get(), results, preludes);
        }
        for (int i = 0; i < results.length; i++) {
            if (results[i].error() != null) {
                throw unitFailure(results[i].error(), i);
            }
        }
        RouteResult.RowsStay rowsStay = route.rowsStay();
        if (rowsStay != null) {
            for (int unit : rowsStay.units()) {
                String tag = results[unit].tag();
                if (tag == null || CommandTags.rowCount(tag) != 0) {
                    // Nothing reached the client yet (the results are buffered); the transaction the statement ran in
                    // is rolled back, or the client's block is failed, as for a unit's own error.
                    throw new StatementFailure(ErrorFields.error("0A000", rowsStay.message()));
                }
            }
        }
        for (BufferedResult each : results) {
            each.rowFormats(unitFormats());
        }
        return combine(results);
    }

    /** The server.yaml property that sets {@link LogicalDatabase#statementMemoryLimit()}, named in 53200 errors. */
    public static final String MEMORY_LIMIT_SETTING = "proxy-statement-memory-limit";

    /**
     * Sorts of this many rows or more run on {@link #MERGE_CPU}: a session's thread runs on its
     * client's event loop, which a long sort would take from every other client of that loop.
     */
    static final int OFFLOAD_ROWS = 20_000;

    /** Where large in-memory sorts run while their sessions wait, parked. */
    private static final java.util.concurrent.Executor MERGE_CPU = mergeExecutor();

    private static java.util.concurrent.Executor mergeExecutor() {
        java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
        return java.util.concurrent.Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()), task -> {
            Thread thread = new Thread(task, "ashlar-merge-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Sends every unit and reads each one's header (its columns, or its failure) before returning
     * the result, whose rows are read from the backends as the client takes them. A data source
     * with one unit answers it as usual; one with several answers them as portals read in turns
     * ({@link UnitStreams#portals}), so that a merge that needs every unit's next row holds one
     * fetch per unit rather than whole units.
     */
    private QueryResult runStreamed(BackendConnection[] connections, boolean[] begin) throws StatementFailure {
        List<RewrittenUnit> units = rewrite.units();
        UnitStream[] streams = new UnitStream[units.size()];
        SQLException failure = null;
        int failedUnit = -1;
        for (int g = 0; g < dataSources.length && failure == null; g++) {
            List<Integer> indexes = new ArrayList<>(2);
            for (int i = 0; i < units.size(); i++) {
                if (unitDataSource[i] == dataSources[g]) {
                    indexes.add(i);
                }
            }
            try {
                if (indexes.size() == 1) {
                    streams[indexes.get(0)] = UnitStreams.single(connections[g], statement(units.get(indexes.get(0))), begin[g], budget);
                } else {
                    BackendConnection.Statement[] statements = new BackendConnection.Statement[indexes.size()];
                    for (int k = 0; k < statements.length; k++) {
                        statements[k] = statement(units.get(indexes.get(k)));
                    }
                    UnitStream[] group = UnitStreams.portals(connections[g], statements, begin[g], budget);
                    for (int k = 0; k < group.length; k++) {
                        streams[indexes.get(k)] = group[k];
                    }
                }
            } catch (SQLException e) {
                failure = e;
                failedUnit = indexes.get(0);
            }
        }
        for (int i = 0; i < streams.length && failure == null; i++) {
            try {
                streams[i].header();
            } catch (SQLException e) {
                failure = e;
                failedUnit = i;
            }
        }
        if (failure == null) {
            for (int i = 0; i < streams.length; i++) {
                if (streams[i].error() != null) {
                    failure = streams[i].error();
                    failedUnit = i;
                    break;
                }
            }
        }
        if (failure != null) {
            closeAll(streams);
            throw failedUnit >= 0 ? unitFailure(failure, failedUnit) : new StatementFailure(ErrorFields.from(failure), failure);
        }
        if (streams.length == 1) {
            // The client's own answer: its rows go on as the shard sent them, in the formats the client asked for.
            streams[0].rowFormats(unitFormats());
            streams[0].relayFrames();
            return streams[0];
        }
        GatheredNotices notices = new GatheredNotices(streams);
        if (!streams[0].hasRows()) {
            closeAll(streams);
            return new TagResult(sumTags(streams), notices.now());
        }
        List<RowCursor> cursors = new ArrayList<>(streams.length);
        for (UnitStream each : streams) {
            cursors.add(new StreamCursor(each));
        }
        try {
            // Streamed statements are reads (streamRows): their tag is SELECT and the rows the client got, while
            // the units' own tags are not read yet (a unit's CommandComplete comes after its rows).
            return merged(streams[0].columns(), "SELECT", cursors, null, notices);
        } catch (StatementFailure | RuntimeException e) {
            closeAll(streams);
            throw e;
        }
    }

    /**
     * A routine's failure, the checking data source's first: its error is PostgreSQL's about the body (or a refusal
     * of a body reading a sharded table); another's, when the checking one made it, is about that data source
     * ({@link RoutineDefinition#unchecked}).
     */
    private void checkRoutine(RoutineDefinition definition, BufferedResult[] results, BufferedResult[] preludes) throws StatementFailure {
        for (int i = 0; i < results.length; i++) {
            if (unitDataSource[i] == checking && results[i].error() != null) {
                StatementFailure failure = unitFailure(results[i].error(), i);
                throw new StatementFailure(definition.checked(failure.fields(), database.rules()), results[i].error());
            }
        }
        for (int g = 0; g < dataSources.length; g++) {
            if (preludes[g] != null && preludes[g].error() != null) {
                throw new StatementFailure(ErrorFields.from(preludes[g].error()), preludes[g].error());
            }
        }
        for (int i = 0; i < results.length; i++) {
            if (results[i].error() != null) {
                StatementFailure failure = unitFailure(results[i].error(), i);
                String dataSource = database.dataSources().get(unitDataSource[i]).name();
                throw new StatementFailure(definition.unchecked(failure.fields(), dataSource), results[i].error());
            }
        }
    }

    /**
     * A unit's error, its position moved from the unit's text to the statement's as the client sent it: kept where
     * the two read the same up to it (or from it to the end), dropped where the rewrite changed the text around it.
     */
    private StatementFailure unitFailure(SQLException e, int unit) {
        ErrorFields fields = ErrorFields.from(e);
        String unitSql = rewrite.units().get(unit).sql();
        String sql = statement.sql();
        if (!unitSql.equals(sql)) {
            fields = fields.withPosition(position -> positionInStatement(sql, unitSql, position));
        }
        return new StatementFailure(fields, e);
    }

    /**
     * A 1-based position in {@code unitSql} as a position in {@code sql}, the text it was rewritten from; 0 where none
     * is. The end of the text (PostgreSQL's "at end of input", one past its last character) is the end of the other.
     */
    public static int positionInStatement(String sql, String unitSql, int position) {
        int shorter = Math.min(sql.length(), unitSql.length());
        int prefix = 0;
        while (prefix < shorter && sql.charAt(prefix) == unitSql.charAt(prefix)) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < shorter - prefix
                && sql.charAt(sql.length() - 1 - suffix) == unitSql.charAt(unitSql.length() - 1 - suffix)) {
            suffix++;
        }
        int index = position - 1;
        if (index < prefix) {
            return position;
        }
        if (index >= unitSql.length() - suffix && index <= unitSql.length()) {
            return position - (unitSql.length() - sql.length());
        }
        return uniqueToken(sql, unitSql, index);
    }

    /**
     * Where the token at {@code index} of {@code unitSql} (a name or a quoted literal) is in {@code sql} when it is
     * there exactly once, as a whole token (names ignoring case), 1-based; else 0. A rewrite that moved or repeated text
     * ({@code ORDER BY nosuch} also in the select list, for the merge) keeps the client's position of a name it
     * reports this way.
     */
    private static int uniqueToken(String sql, String unitSql, int index) {
        if (index < 0 || index >= unitSql.length()) {
            return 0;
        }
        char first = unitSql.charAt(index);
        int end;
        if (first == '\'' || first == '"') {
            end = unitSql.indexOf(first, index + 1);
            if (end < 0) {
                return 0;
            }
            end++;
        } else if (Character.isLetterOrDigit(first) || first == '_') {
            end = index;
            while (end < unitSql.length() && isNameChar(unitSql.charAt(end))) {
                end++;
            }
        } else {
            return 0;
        }
        String token = unitSql.substring(index, end);
        boolean quoted = first == '\'' || first == '"';
        int found = -1;
        for (int from = 0; from <= sql.length() - token.length(); from++) {
            if (!sql.regionMatches(!quoted, from, token, 0, token.length())
                    || !quoted && (from > 0 && isNameChar(sql.charAt(from - 1))
                        || from + token.length() < sql.length() && isNameChar(sql.charAt(from + token.length())))) {
                continue;
            }
            if (found >= 0) {
                return 0; // more than once: which one is not known
            }
            found = from;
        }
        return found + 1;
    }

    private static boolean isNameChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    private static void closeAll(UnitStream[] streams) {
        for (UnitStream each : streams) {
            if (each != null) {
                each.close();
            }
        }
    }

    private BackendConnection.Statement statement(RewrittenUnit unit) {
        ParameterValues values = unitParameters(unit);
        boolean simple = simpleProtocol && values.values().length == 0;
        return new BackendConnection.Statement(unit.sql(), values, simple, simple ? null : unitFormats());
    }

    /**
     * The statement of the one unit a statement routed to one unit runs, in the client's result formats
     * ({@link #clientFormats}): its answer is the client's as the shard sends it.
     */
    public BackendConnection.Statement onlyUnit() {
        return statement(rewrite.units().get(0));
    }

    /** The only unit's error as the client reads it: its position moved to the statement's text ({@link #onlyUnit}). */
    public StatementFailure onlyUnitFailure(SQLException e) {
        return unitFailure(e, 0);
    }

    /** The unit's parameters: the original ones, renumbered when the unit's SQL kept only some of them. */
    private ParameterValues unitParameters(RewrittenUnit unit) {
        int[] map = unit.parameterMap();
        if (map == null || isIdentity(map, parameters.values().length)) {
            return parameters;
        }
        int[] types = new int[map.length];
        short[] formats = new short[map.length];
        byte[][] values = new byte[map.length][];
        for (int k = 0; k < map.length; k++) {
            int from = map[k];
            types[k] = parameters.types()[from];
            formats[k] = parameters.formats()[from];
            values[k] = parameters.values()[from];
        }
        return new ParameterValues(types, formats, values);
    }

    private static boolean isIdentity(int[] map, int count) {
        if (map.length != count) {
            return false;
        }
        for (int i = 0; i < map.length; i++) {
            if (map[i] != i) {
                return false;
            }
        }
        return true;
    }

    private QueryResult combine(BufferedResult[] results) throws StatementFailure {
        if (results.length == 1) {
            return results[0];
        }
        RouteKind kind = route.kind();
        if (kind == RouteKind.BROADCAST_WRITE) {
            // Every data source holds a full copy: the client's count is one copy's.
            return results[0];
        }
        GatheredNotices notices = new GatheredNotices(results);
        if (explainStartedNanos != 0 && results[0].hasRows()) {
            QueryResult plan = ExplainPlan.labelled(database, statement.sql(), rewrite.units(), results, notices.now(),
                    System.nanoTime() - explainStartedNanos, text);
            if (plan != null) {
                return plan;
            }
        }
        if (results[0].hasRows()) {
            return merged(results, notices);
        }
        return new TagResult(sumTags(results), notices.now());
    }

    /** Adds up the row counts of the units' tags: {@code INSERT 0 3}, {@code UPDATE 7}, ... */
    static String sumTags(QueryResult[] results) {
        String first = results[0].tag();
        if (CommandTags.rowCount(first) < 0) {
            return first;
        }
        CommandTags.Sum sum = new CommandTags.Sum();
        for (QueryResult result : results) {
            sum.add(result.tag());
        }
        return sum.tag();
    }

    /**
     * The columns the client sees: the first {@code visible} of the shards' columns, with the
     * result types of aggregates the shards computed differently (COUNT(DISTINCT x) is x on the
     * shards) set to PostgreSQL's.
     */
    static ColumnDescription[] visible(ColumnDescription[] columns, int visible, List<MergeTemplate.ResultType> resultTypes) {
        if (visible == columns.length && resultTypes.isEmpty()) {
            return columns;
        }
        ColumnDescription[] result = java.util.Arrays.copyOf(columns, visible);
        for (MergeTemplate.ResultType each : resultTypes) {
            result[each.column()] = new ColumnDescription(result[each.column()].name(), 0, (short) 0,
                    each.typeOid(), each.typeSize(), each.typeModifier());
        }
        return result;
    }

    /** Whether the merge computes a float value (a SUM or AVG of floats), rather than passing the shards' bytes on. */
    private static boolean computesFloats(MergeTemplate template, int[] types) {
        for (io.ashlar.merge.plan.Aggregate aggregate : template.plan(types).aggregates()) {
            boolean computed = !(aggregate instanceof io.ashlar.merge.plan.Aggregate.Min)
                    && !(aggregate instanceof io.ashlar.merge.plan.Aggregate.Max)
                    && !(aggregate instanceof io.ashlar.merge.plan.Aggregate.Count)
                    && !(aggregate instanceof io.ashlar.merge.plan.Aggregate.CountDistinct);
            int type = types[aggregate.column()];
            if (computed && (type == 700 || type == 701)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The first column whose values the merge reads (to sort, group, add up, take a MIN or MAX, count distinct values,
     * filter by HAVING or drop duplicates) and whose text a setting of the session prints otherwise than the merge reads
     * it, or -1: dates and timestamps (and arrays, ranges of them) without {@link #ISO_DATES}, intervals without
     * {@link #POSTGRES_INTERVALS}. A column only passed on, whatever it holds, is not read.
     */
    static int readsStyled(io.ashlar.merge.plan.MergePlan plan, int[] types, int mergeStyles) {
        boolean[] read = readColumns(plan, types.length);
        for (int i = 0; i < types.length; i++) {
            if (read[i] && styled(types[i], mergeStyles)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether values of the type are printed by a setting the session has otherwise than the merge reads them. */
    private static boolean styled(int type, int mergeStyles) {
        return (mergeStyles & ISO_DATES) == 0 && TypeOids.printedByDateStyle(type)
                || (mergeStyles & POSTGRES_INTERVALS) == 0 && (type == TypeOids.INTERVAL || type == TypeOids.INTERVAL_ARRAY);
    }

    /**
     * The RETURNING rows of a multi-row INSERT split over shards, put back in the order of its
     * VALUES rows, as PostgreSQL returns them (ORMs match generated keys to their objects by it);
     * null when a unit returned another number of rows than it inserted (ON CONFLICT DO NOTHING
     * skipped some), where the order cannot be known and the shards' rows follow each other.
     */
    private RowCursor inValuesOrder(BufferedResult[] results, ColumnDescription[] columns) {
        List<RewrittenUnit> units = rewrite.units();
        int total = 0;
        for (int i = 0; i < results.length; i++) {
            int[] rows = units.get(i).unit().insertRows();
            if (rows.length == 0 || rows.length != results[i].rowCount()) {
                return null;
            }
            total += rows.length;
        }
        byte[][][] ordered = new byte[total][][];
        for (int i = 0; i < results.length; i++) {
            int[] rows = units.get(i).unit().insertRows();
            for (int j = 0; j < rows.length; j++) {
                if (rows[j] >= total || ordered[rows[j]] != null) {
                    return null;
                }
                io.ashlar.backend.execute.RowValues values = results[i].row(j);
                byte[][] copy = new byte[columns.length][];
                for (int c = 0; c < copy.length; c++) {
                    copy[c] = values.value(c);
                }
                ordered[rows[j]] = copy;
            }
        }
        int[] types = new int[columns.length];
        for (int c = 0; c < columns.length; c++) {
            types[c] = columns[c].typeOid();
        }
        return new io.ashlar.merge.ListRowCursor(types, java.util.Arrays.asList(ordered));
    }

    private QueryResult merged(BufferedResult[] results, GatheredNotices notices) throws StatementFailure {
        List<RowCursor> cursors = new ArrayList<>(results.length);
        for (BufferedResult result : results) {
            cursors.add(new ShardCursor(result));
        }
        return merged(results[0].columns(), results[0].tag(), cursors, results, notices);
    }

    /** Text of a session in ISO-8859-1 (LATIN1): its bytes order as its characters. */
    private static final io.ashlar.merge.plan.TextCollation ISO_8859_1_BYTES = new io.ashlar.merge.plan.TextCollation() {
        @Override
        public int compare(byte[] a, int aLength, byte[] b, int bLength) {
            return io.ashlar.merge.plan.TextCollation.C.compare(a, aLength, b, bLength);
        }

        @Override
        public java.nio.charset.Charset charset() {
            return java.nio.charset.StandardCharsets.ISO_8859_1;
        }
    };

    /**
     * How the merge compares the text of a session in another client_encoding than UTF8, as the shards' "C" collation
     * compares its characters in UTF-8 (whose byte order is theirs), and in which charset it writes HAVING's constants.
     */
    static io.ashlar.merge.plan.TextCollation collation(java.nio.charset.Charset text) {
        if (text == java.nio.charset.StandardCharsets.ISO_8859_1) {
            return ISO_8859_1_BYTES;
        }
        // One per charset: a statement's compiled merge is kept for the collation it was compiled with (by identity).
        io.ashlar.merge.plan.TextCollation result = COLLATIONS.get(text);
        return result != null ? result : COLLATIONS.computeIfAbsent(text, CodePointOrder::new);
    }

    private static final java.util.concurrent.ConcurrentHashMap<java.nio.charset.Charset, io.ashlar.merge.plan.TextCollation>
            COLLATIONS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Text in a client_encoding whose byte order is not its characters' (WIN1252's œ is 0x9C, below Ä's 0xC4; U+0153
     * is above U+00C4): compared by code point, ties broken by the bytes (equal text stays equal bytes).
     */
    private record CodePointOrder(java.nio.charset.Charset charset) implements io.ashlar.merge.plan.TextCollation {
        @Override
        public int compare(byte[] a, int aLength, byte[] b, int bLength) {
            String x = new String(a, 0, aLength, charset);
            String y = new String(b, 0, bLength, charset);
            int i = 0;
            int j = 0;
            while (i < x.length() && j < y.length()) {
                int cx = x.codePointAt(i);
                int cy = y.codePointAt(j);
                if (cx != cy) {
                    return Integer.compare(cx, cy);
                }
                i += Character.charCount(cx);
                j += Character.charCount(cy);
            }
            int order = Integer.compare(x.length() - i, y.length() - j);
            return order != 0 ? order : java.util.Arrays.compareUnsigned(a, 0, aLength, b, 0, bLength);
        }
    }

    /**
     * The merged result of the units' rows.
     *
     * @param buffered the units' whole results when they were read whole (a multi-row INSERT's
     *        RETURNING rows are then put in VALUES order), else null
     */
    private QueryResult merged(ColumnDescription[] columns, String tag, List<RowCursor> cursors, BufferedResult[] buffered,
                               GatheredNotices notices) throws StatementFailure {
        int space = tag.indexOf(' ');
        String verb = space < 0 ? tag : tag.substring(0, space);
        if (verb.equals("INSERT")) {
            verb = "INSERT 0";
        }
        Optional<MergeTemplate> template = rewrite.merge();
        RowCursor cursor;
        int visible;
        List<MergeTemplate.ResultType> resultTypes = List.of();
        try {
            if (template.isPresent()) {
                int[] types = new int[columns.length];
                for (int i = 0; i < columns.length; i++) {
                    types[i] = columns[i].typeOid();
                }
                if (!shortestFloats && computesFloats(template.get(), types)) {
                    throw new StatementFailure(ErrorFields.error("0A000", "float results merged across shards are printed"
                            + " with the shortest exact digits only", "Use extra_float_digits 1 or more (the default)."));
                }
                if (mergeStyles != (ISO_DATES | POSTGRES_INTERVALS)) {
                    int read = readsStyled(template.get().plan(types), types, mergeStyles);
                    if (read >= 0) {
                        // The message starts as a merge's refusal does: the session finishes such a read in PostgreSQL.
                        boolean dates = TypeOids.printedByDateStyle(types[read]);
                        throw new StatementFailure(ErrorFields.error("0A000", "cannot merge the shards' results of this"
                                + " statement: its merge reads the " + columns[read].name() + " column's "
                                + (dates ? "dates, which Ashlar reads in DateStyle ISO only" : "intervals, which Ashlar reads"
                                + " in IntervalStyle postgres only"), dates ? "SET DateStyle TO ISO." : "SET IntervalStyle TO postgres."));
                    }
                }
                MergeTemplate.Merge merge = text == java.nio.charset.StandardCharsets.UTF_8
                        ? template.get().merge(types) : template.get().merge(types, collation(text));
                visible = merge.visibleColumns();
                resultTypes = merge.resultTypes();
                cursor = merge.step().open(cursors, new MergeContext(budget, MERGE_CPU, OFFLOAD_ROWS));
            } else {
                visible = columns.length;
                RowCursor inValuesOrder = verb.equals("INSERT 0") && buffered != null ? inValuesOrder(buffered, columns) : null;
                cursor = inValuesOrder != null ? inValuesOrder : new ConcatenatingCursor(cursors);
            }
        } catch (MemoryBudget.MemoryLimitExceededException e) {
            throw new StatementFailure(UnitStreams.outOfMemory(e), e);
        } catch (StreamCursor.ShardFailure e) {
            throw new StatementFailure(ErrorFields.from(e.getCause()), e.getCause());
        } catch (RuntimeException e) {
            throw new StatementFailure(ErrorFields.error("0A000", "cannot merge the shards' results of this statement: "
                    + e.getMessage()), e);
        }
        ColumnDescription[] visibleColumns = visible(columns, visible, resultTypes);
        // Rows that no merge step read are still in the formats the units were asked for.
        return new MergedResult(visibleColumns, cursor, notices, verb, unitFormats());
    }
}
