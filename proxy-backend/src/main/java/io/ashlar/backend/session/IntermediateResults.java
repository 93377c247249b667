package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.sharding.IntermediateKeys;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.merge.MemoryBudget;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.route.RecursivePlan;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.rule.DataNode;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/**
 * Runs a {@link RecursivePlan}: fills each sharded table's intermediate result on the coordinator, then lets the
 * coordinator run the client's statement over them. Everything happens inside a transaction of the session's (the
 * client's block, or an implicit one the caller opens and ends around it), on the connections the session holds for
 * it, so that the statement sees the transaction's own writes, as it would on one database.
 *
 * <p>An intermediate result is a temporary table, {@code CREATE TEMP TABLE ... (LIKE actual_table) ON COMMIT DROP}:
 * LIKE gives the exact column types, modifiers and collations of the actual table, so the finishing statement sees
 * the types PostgreSQL would, and a shard's rows go in as the shard sent them, {@code COPY ... TO STDOUT (FORMAT
 * binary)} relayed chunk by chunk into {@code COPY ... FROM STDIN (FORMAT binary)}: nothing is decoded, nothing is
 * printed and read back (floats keep every bit, whatever {@code extra_float_digits} says), and the proxy holds one
 * chunk at a time. Actual tables on the coordinator itself are copied there by {@code INSERT ... SELECT}, without
 * leaving it. Literal rows ({@code VALUES}) were the alternative for small results; they would need each value
 * quoted and typed in the statement's text, and types PostgreSQL infers for literals (unknown, numeric, text) are not
 * the column's, so they are not used: one kind of intermediate result, exact for every type.
 *
 * <p>The bytes relayed through the proxy count against the statement's budget, server.yaml's
 * {@code proxy-statement-memory-limit}: past it the statement fails with 54000 (program_limit_exceeded), naming the
 * setting, and the COPYs are cancelled. The finishing statement's rows are kept within the same budget (53200 past
 * it), as every buffered result is.
 */
final class IntermediateResults {

    private final LogicalDatabase database;
    private final ShardConnections connections;
    private final ShardedTransaction transaction;
    /** Numbers each recursive statement's intermediate results: their names are unique per statement. */
    private long serial;

    IntermediateResults(LogicalDatabase database, ShardConnections connections, ShardedTransaction transaction) {
        this.database = database;
        this.connections = connections;
        this.transaction = transaction;
    }

    /** A read the route refused because it spans shards, as a recursive plan; null where it cannot be one. */
    RecursivePlan plan(Plan plan, RouteParameters parameters) {
        return RecursivePlan.plan(plan.statement(), database.rules(), parameters, "ashlar_ir_" + (++serial));
    }

    /**
     * The error of a statement the route refused and no recursive plan takes. EXPLAIN of a read that would be
     * finished by PostgreSQL over intermediate results says so, rather than that its subquery is not supported
     * (the read itself runs), and points to PREVIEW.
     */
    static ErrorFields refusal(AnalyzedStatement statement, RouteException e) {
        if (e.plannable() && statement.command().equals("explain")) {
            return ErrorFields.error("0A000", "EXPLAIN of a read that spans shards is not supported (" + e.getMessage()
                    + "); the read itself runs, finished by PostgreSQL over intermediate results",
                    "PREVIEW followed by the statement shows what each data source runs and how the read is finished.");
        }
        return ErrorFields.error(e.sqlState(), e.getMessage());
    }

    /** The connection slot of the plan's coordinator. */
    int coordinator(RecursivePlan plan) {
        return database.dataSourceIndex(plan.coordinatorDataSource());
    }

    /** Fills the intermediate results and runs the finishing statement; a transaction must be in force. */
    BufferedResult run(RecursivePlan plan, ParameterValues parameters) throws StatementFailure {
        long limit = database.statementMemoryLimit();
        int coordinator = coordinator(plan);
        connections.acquireAll(involved(plan, coordinator));
        BackendConnection target = join(coordinator);
        StringBuilder ddl = new StringBuilder(128);
        for (RecursivePlan.Intermediate each : plan.intermediates()) {
            ddl.append(ddl.isEmpty() ? "" : ";").append(each.createSql());
        }
        try {
            ShardConnections.runOn(target, ddl.toString());
        } catch (StatementFailure failure) {
            if (!failure.fields().sqlState().equals("25006")) {
                throw failure;
            }
            throw new StatementFailure(ErrorFields.error("25006", failure.fields().message(), "this read spans shards: PostgreSQL"
                    + " finishes it over temporary tables on " + plan.coordinatorDataSource() + ", which a read-only transaction"
                    + " cannot create; run it outside the read-only transaction"), failure);
        }
        try {
            fill(plan, coordinator, target, limit);
        } catch (StatementFailure failure) {
            // a position in the shards' statements points into text the client never sent
            throw new StatementFailure(failure.fields().withPosition(position -> 0), failure.getCause());
        }
        BufferedResult result = new BufferedResult(new MemoryBudget(limit, ShardedExecution.MEMORY_LIMIT_SETTING));
        try {
            if (parameters.values().length == 0) {
                target.executeSimple(plan.finishingSql(), result);
            } else {
                target.execute(plan.finishingSql(), parameters, result);
            }
        } catch (SQLException e) {
            result.handleError(e);
        }
        if (result.error() != null) {
            throw new StatementFailure(ErrorFields.from(result.error()).withPosition(plan::clientPosition), result.error());
        }
        if (result.hasRows()) {
            result.columns(logicalColumns(plan, target, result.columns()));
        }
        if (!transaction.state().inImplicit()) {
            // In the client's block the tables would live until COMMIT: dropped now, so that the next statement's
            // names are free and the block does not pile them up.
            StringBuilder drop = new StringBuilder("DROP TABLE ");
            for (int i = 0; i < plan.intermediates().size(); i++) {
                drop.append(i == 0 ? "" : ", ").append(plan.intermediates().get(i).name());
            }
            ShardConnections.runOn(target, drop.toString());
        }
        return result;
    }

    /**
     * The finishing statement's columns with those that come from an intermediate result described as the logical
     * table's (its shell's OID, its logical column number), as every other result of the proxy describes them, so that
     * drivers and GUIs name the logical table (pgjdbc's getTableName, getBaseColumnName); the temporary tables' OIDs
     * would name nothing a client can see. The intermediate results' OIDs and column names are asked of the
     * coordinator while they exist, only when some column comes from a table.
     */
    ColumnDescription[] logicalColumns(RecursivePlan plan, BackendConnection target, ColumnDescription[] columns) throws StatementFailure {
        StringBuilder oids = new StringBuilder();
        for (ColumnDescription each : columns) {
            if (each.tableOid() != 0) {
                oids.append(oids.isEmpty() ? "" : ",").append(Integer.toUnsignedString(each.tableOid()));
            }
        }
        if (oids.isEmpty()) {
            return columns;
        }
        List<String[]> attributes;
        try {
            attributes = io.ashlar.backend.execute.TextRows.query(target, "SELECT c.oid, a.attnum, a.attname, c.relname FROM pg_catalog.pg_class c"
                    + " JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid WHERE c.oid IN (" + oids + ") AND a.attnum > 0");
        } catch (SQLException e) {
            throw new StatementFailure(ErrorFields.from(e), e);
        }
        io.ashlar.backend.metadata.LogicalSchema schema = database.catalog().schema();
        ColumnDescription[] result = columns;
        for (int i = 0; i < columns.length; i++) {
            ColumnDescription column = columns[i];
            if (column.tableOid() == 0) {
                continue;
            }
            for (String[] attribute : attributes) {
                if (Integer.parseUnsignedInt(attribute[0]) != column.tableOid() || Short.parseShort(attribute[1]) != column.columnNumber()) {
                    continue;
                }
                for (RecursivePlan.Intermediate intermediate : plan.intermediates()) {
                    if (intermediate.name().equals(attribute[3])) {
                        if (result == columns) {
                            result = columns.clone();
                        }
                        result[i] = schema.logicalColumn(column, intermediate.table().logicTable(), attribute[2]);
                    }
                }
            }
        }
        return result;
    }

    /** Fills the intermediate results on the coordinator: its own actual tables copied there, the others' relayed. */
    private void fill(RecursivePlan plan, int coordinator, BackendConnection target, long limit) throws StatementFailure {
        long relayed = 0;
        for (RecursivePlan.Intermediate each : plan.intermediates()) {
            String columns = columnList(each);
            StringBuilder local = new StringBuilder();
            for (DataNode node : each.nodes()) {
                int slot = database.dataSourceIndex(node.dataSource());
                if (slot == coordinator) {
                    local.append(local.isEmpty() ? "" : ";").append(each.insertSql(node, columns));
                } else {
                    relayed = relay(join(slot), node, target, each, columns, relayed, limit);
                }
            }
            if (!local.isEmpty()) {
                ShardConnections.runOn(target, local.toString());
            }
        }
        addPrimaryKeys(plan, target);
    }

    /**
     * Relays one actual table's rows from its shard into the intermediate result, within the budget.
     *
     * @return the bytes relayed so far by the statement
     */
    private long relay(BackendConnection shard, DataNode node, BackendConnection target, RecursivePlan.Intermediate intermediate, String columns, long relayed,
                       long limit) throws StatementFailure {
        if (shard.textCharset() == java.nio.charset.StandardCharsets.UTF_8) {
            return relayRows(shard, node, target, intermediate, columns, relayed, limit);
        }
        // A session in another client_encoding: binary COPY sends text in it, and a row of the actual table that it
        // cannot spell (which the statement may never read) would fail the COPY. The rows go across in UTF-8, as the
        // shards keep them, and both connections are given the session's encoding back.
        String restore = "SET client_encoding TO '" + shard.readableEncoding() + "'";
        long result;
        try {
            ShardConnections.runOn(shard, "SET client_encoding TO 'UTF8'");
            ShardConnections.runOn(target, "SET client_encoding TO 'UTF8'");
            result = relayRows(shard, node, target, intermediate, columns, relayed, limit);
            ShardConnections.runOn(shard, restore);
            ShardConnections.runOn(target, restore);
        } catch (StatementFailure failure) {
            // The transaction's rollback undoes the SETs; until then neither connection is taken to carry the
            // session's settings, which the next use gives them again.
            shard.settings(SessionSettings.UNKNOWN);
            target.settings(SessionSettings.UNKNOWN);
            throw failure;
        }
        return result;
    }

    private long relayRows(BackendConnection shard, DataNode node, BackendConnection target, RecursivePlan.Intermediate intermediate,
                           String columns, long relayed, long limit) throws StatementFailure {
        CopyStream.Out out;
        try {
            out = (CopyStream.Out) shard.startCopy(intermediate.copyOutSql(node, columns));
        } catch (SQLException e) {
            throw new StatementFailure(ErrorFields.from(e), e);
        }
        CopyStream.In in;
        try {
            in = (CopyStream.In) target.startCopy(intermediate.copyInSql(columns));
        } catch (SQLException e) {
            cancel(out);
            throw new StatementFailure(ErrorFields.from(e), e);
        }
        long result = relayed;
        try {
            for (byte[] chunk = out.readFromCopy(); chunk != null; chunk = out.readFromCopy()) {
                result += chunk.length;
                if (result > limit) {
                    cancel(out);
                    cancel(in);
                    throw new StatementFailure(ErrorFields.error("54000", "the rows of the sharded tables this statement reads across shards exceed "
                            + ShardedExecution.MEMORY_LIMIT_SETTING + " (" + limit + " bytes) as intermediate results",
                            "add conditions that narrow what it reads, or raise " + ShardedExecution.MEMORY_LIMIT_SETTING + " in server.yaml"));
                }
                in.writeToCopy(chunk, 0, chunk.length);
            }
            in.endCopy();
        } catch (SQLException e) {
            cancel(in);
            throw new StatementFailure(ErrorFields.from(e), e);
        }
        return result;
    }

    private static void cancel(CopyStream copy) {
        try {
            copy.cancelCopy();
        } catch (SQLException ignored) {
            // the statement's own error is the one the client gets; a broken connection is dropped after it
        }
    }

    /** Gives each intermediate result its table's primary key where a GROUP BY may need it ({@link IntermediateKeys}). */
    private void addPrimaryKeys(RecursivePlan plan, BackendConnection target) throws StatementFailure {
        String keys = primaryKeys(plan);
        if (keys.isEmpty()) {
            return;
        }
        try {
            ShardConnections.runOn(target, keys);
        } catch (StatementFailure failure) {
            if (!failure.fields().sqlState().equals("23505")) {
                throw failure;
            }
            throw new StatementFailure(ErrorFields.error("23505", failure.fields().message() + ": the primary key of a sharded table this"
                    + " statement reads holds a value on several shards", "this read spans shards: PostgreSQL finishes it over"
                    + " temporary tables given the tables' primary keys, for its GROUP BY; make the key values unique across shards"), failure);
        }
    }

    /** The statements giving the plan's intermediate results their tables' primary keys ({@link IntermediateKeys}). */
    String primaryKeys(RecursivePlan plan) {
        return IntermediateKeys.sql(database, plan);
    }

    /**
     * Empty when the actual tables of the intermediate result's table all have the logical table's columns in its order
     * (the common case: every column, as the tables have them); else the logical table's columns, named, so that each
     * actual table sends them in the same order (binary COPY matches fields by position only).
     */
    private String columnList(RecursivePlan.Intermediate intermediate) {
        io.ashlar.backend.metadata.LogicalTable table = database.catalog().schema().table("public." + intermediate.table().logicTable());
        if (table == null || !table.columnsDiffer()) {
            return "";
        }
        StringBuilder result = new StringBuilder(" (");
        for (io.ashlar.backend.metadata.ColumnMetadata column : table.metadata().columns()) {
            result.append(result.length() == 2 ? "" : ", ").append('"').append(column.name().replace("\"", "\"\"")).append('"');
        }
        return result.append(')').toString();
    }

    /** The session's connection to a data source, in the transaction in force (a read: it does not count as written). */
    private BackendConnection join(int slot) throws StatementFailure {
        BackendConnection result = connections.acquire(slot);
        if (transaction.needsBegin(slot)) {
            ShardConnections.runOn(result, "BEGIN");
            connections.join(slot);
        }
        return result;
    }

    private int[] involved(RecursivePlan plan, int coordinator) {
        int[] result = new int[database.dataSources().size()];
        int count = 0;
        result[count++] = coordinator;
        for (RecursivePlan.Intermediate each : plan.intermediates()) {
            for (DataNode node : each.nodes()) {
                int slot = database.dataSourceIndex(node.dataSource());
                boolean seen = false;
                for (int i = 0; i < count; i++) {
                    seen |= result[i] == slot;
                }
                if (!seen) {
                    result[count++] = slot;
                }
            }
        }
        return Arrays.copyOf(result, count);
    }
}
