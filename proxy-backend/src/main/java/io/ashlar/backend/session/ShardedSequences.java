package io.ashlar.backend.session;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.SequenceStatement;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.route.rule.DataNode;
import io.ashlar.route.rule.ShardingTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;

/**
 * A session's statements about sequences on a sharded logical database, where every data source has a copy of each
 * sequence and the copies are interleaved ({@link SequenceStatement}): CREATE SEQUENCE interleaves them; setval sets
 * every copy past its value, found first through the sharded SELECT path (BenchmarkSQL's {@code select
 * setval('bmsql_hist_id_seq', (select max(hist_id) from bmsql_history))}); ALTER SEQUENCE ... RESTART WITH does what
 * setval does; CREATE TABLE of a sharded table interleaves its actual tables' serial and identity sequences; currval
 * and lastval run on the connection of the session's last nextval, which the session kept.
 *
 * <p>State: the data source of the session's last nextval through the proxy, or none.
 *
 * @see <a href="https://www.postgresql.org/docs/current/functions-sequence.html">Sequence Manipulation Functions</a>
 */
final class ShardedSequences {

    /** What statements about sequences need of their session. */
    interface Session {
        /** Runs a statement as is on one data source, in the session's transaction. */
        QueryResult onSlot(int slot, String sql, ParameterValues parameters, ResultSink sink) throws StatementFailure;

        /** Runs a query as the session runs any statement (routed, merged). */
        QueryResult query(Plan plan, ParameterValues parameters) throws StatementFailure;

        /** Opens an implicit transaction when none is in force; whether it did. */
        boolean beginImplicit();

        /** A statement failed: the transaction fails, an implicit one the statement opened rolls back. */
        void failed(boolean startedImplicit);

        /** Commits the implicit transaction this statement opened, in which it wrote to these data sources. */
        void commitImplicit(int[] written, ResultSink sink) throws StatementFailure;

        /** The statement wrote to these data sources in the transaction in force. */
        void written(int[] slots);

        /** Whether the session keeps its connection of this data source for good. */
        boolean bound(int slot);

        /** The session keeps its connection of this data source for good (its sequence state: currval, lastval). */
        void keep(int slot) throws StatementFailure;

        /** The charset of the session's client_encoding: the rows read are in it. */
        default java.nio.charset.Charset text() {
            return StandardCharsets.UTF_8;
        }

        /** The connection the session holds for this data source now, or null. */
        BackendConnection held(int slot);

        /** The transaction in force (a number that stays while it lasts), or -1 outside one. */
        long transaction();

        /**
         * The statement made or changed a sequence on every data source: plans are made anew, and the catalog
         * database's stand-alone sequences follow; in a transaction block at once, the statement running on the
         * session's catalog connection too when {@code mirror}.
         */
        void changedSequence(Plan plan, boolean mirror);
    }

    /** A serial or identity column of a sharded table: the logical sequence is its actual tables' sequences. */
    private record Owner(ShardingTable table, String column) {
    }

    private final LogicalDatabase database;
    private final Session session;
    /**
     * The data source the session's last nextval through the proxy ran on (its connection stays with the session), or
     * -1; {@link #SNAPSHOT} when the proxy read what currval and lastval answer after it ({@link #snapshot}).
     */
    private int source = -1;
    /** {@link #source} when currval and lastval are answered from {@link #lastvalue} and {@link #currvals}. */
    private static final int SNAPSHOT = -2;
    /** What lastval answers after the session's last nextval the proxy read ({@link #snapshot}); null before one. */
    private String lastvalue;
    /** What currval answers for each sequence the session's nextval statements named (by the literal as written). */
    private final java.util.Map<String, String> currvals = new java.util.HashMap<>();
    /** Before an ALTER TABLE that may add serial or identity columns: each actual table's sequences (OIDs), or null. */
    private String[] ownedBefore;
    /**
     * The last {@value #KEPT_INSERTS} INSERTs of the transaction in force that ran on one data source, newest last (a
     * ring): where a serial or identity DEFAULT may have called nextval for this session. Each with its data source
     * and the connection it ran on (while the session still holds it, nobody else used it). Read only when the session
     * asks currval or lastval; recording one costs three stores.
     */
    private static final int KEPT_INSERTS = 8;
    private final Plan[] inserts = new Plan[KEPT_INSERTS];
    private final int[] insertSlots = new int[KEPT_INSERTS];
    private final BackendConnection[] insertedOn = new BackendConnection[KEPT_INSERTS];
    private int insertCount;
    private long insertTransaction = -1;

    ShardedSequences(LogicalDatabase database, Session session) {
        this.database = database;
        this.session = session;
    }

    /** The statement's answer, or null when it runs as routed. */
    QueryResult run(Plan plan, SequenceStatement sequence, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        switch (sequence.kind()) {
            case CREATE_SEQUENCE:
                return createSequence(plan, sequence, parameters, sink);
            case RESTART_SEQUENCE:
                interleaveAlike(sequence);
                try {
                    onEveryDataSource(sequence.setvalOnCopy(sequence.valueArgument()), parameters, sink).close();
                } catch (StatementFailure failure) {
                    throw positioned(failure, sequence);
                }
                database.plans().schemaChanged();
                return new TagResult("ALTER SEQUENCE", new ArrayList<>(1));
            case ALTER_SEQUENCE:
                return alterSequence(plan, sequence, parameters, sink);
            case OWNED_BY:
                return ownedBySharded(sequence) ? alterSequence(plan, sequence, parameters, sink) : null;
            case ALTER_REFUSED:
                throw new StatementFailure(ErrorFields.error("0A000", "ALTER SEQUENCE with RESTART WITH a parameter among other options"
                        + " is not supported on the sharded logical database " + database.name(), "restart it in a statement of its own"));
            case SETVAL:
                return setval(sequence, plan.statement().parameterCount() > 0 ? parameters : ParameterValues.NONE, sink);
            case SETVAL_REFUSED:
                throw new StatementFailure(ErrorFields.error("0A000", "setval is supported on the sharded logical database " + database.name()
                        + " only as SELECT setval(sequence, value [, is_called]) [FROM ...]", "call it in a statement of its own"));
            case CURRVAL:
                return plan.statement().tables().isEmpty() ? currval(plan, sequence, parameters, sink) : null;
            case NEXTVAL:
                return plan.statement().tables().isEmpty() ? nextvalOfLogical(plan, sequence, parameters, sink) : null;
            case ALTER_TABLE: {
                ShardingTable table = target(plan);
                ownedBefore = table != null && sequence.ownsNew() ? ownedSequences(table) : null;
                return null;
            }
            case ALTER_TABLE_REFUSED:
                if (target(plan) != null) {
                    throw new StatementFailure(ErrorFields.error("0A000", "ALTER TABLE ... SET INCREMENT BY or SET START WITH of an identity column"
                            + " of a sharded table is not supported", "each actual table's sequence hands out every n-th value of the column;"
                            + " drop the identity and add it again"));
                }
                return null;
            default:
                return null;
        }
    }

    /** CREATE SEQUENCE on every data source, each copy then interleaved with the others, in one transaction. */
    private QueryResult createSequence(Plan plan, SequenceStatement sequence, ParameterValues parameters, ResultSink sink)
            throws StatementFailure {
        int count = database.dataSources().size();
        int defaultIndex = defaultIndex();
        boolean startedImplicit = session.beginImplicit();
        QueryResult result = null;
        int[] all = new int[count];
        try {
            for (int i = 0; i < count; i++) {
                all[i] = i;
                QueryResult created = session.onSlot(i, onDataSource(sequence, plan.statement().sql(), i), parameters,
                        i == defaultIndex ? sink : ResultSink.DISCARD);
                if (!(sequence.ifNotExists() && hasNotice(created, "42P07"))) {
                    session.onSlot(i, sequence.interleaveSequence(i, count), ParameterValues.NONE, ResultSink.DISCARD).close();
                }
                if (i == defaultIndex) {
                    result = created;
                }
            }
        } catch (StatementFailure failure) {
            session.failed(startedImplicit);
            throw failure;
        }
        // OWNED BY a sharded table's column is not mirrored: the copies belong to actual tables, and the shell, read
        // from the first actual table (which may not own one), would be made again without it at its next change.
        session.changedSequence(plan, !ownedBySharded(sequence));
        if (startedImplicit) {
            session.commitImplicit(all, sink);
        } else {
            session.written(all);
        }
        return result;
    }

    /** Whether OWNED BY names a column of a sharded table. */
    private boolean ownedBySharded(SequenceStatement sequence) {
        return !sequence.ownedByTable().isEmpty() && database.rules().find(sequence.ownedByTable()).orElse(null) instanceof ShardingTable;
    }

    /**
     * CREATE or ALTER SEQUENCE's text for one data source: OWNED BY a sharded table's column names the last actual
     * table of it there (dropping the logical table drops every actual table, and the copies with them), or NONE
     * where the data source holds none.
     */
    private String onDataSource(SequenceStatement sequence, String sql, int slot) {
        if (!ownedBySharded(sequence)) {
            return sql;
        }
        ShardingTable table = (ShardingTable) database.rules().find(sequence.ownedByTable()).orElseThrow();
        // The last there: DROP TABLE drops the actual tables in node order, and one owning a sequence that another
        // actual table's DEFAULT still uses could not be dropped first.
        for (int j = table.nodeCount() - 1; j >= 0; j--) {
            if (database.dataSourceIndex(table.node(j).dataSource()) == slot) {
                return sequence.withOwner(sql, table.node(j).table());
            }
        }
        return sequence.withOwner(sql, null);
    }

    /**
     * ALTER SEQUENCE changing INCREMENT or START, or restarting at a value: as written on every copy, then each copy
     * interleaved again from what it is now, in one transaction (ALTER SEQUENCE is transactional): the logical start is
     * copy 0's, the logical increment the one given, or the copies' divided by their number; each copy goes on at its
     * first value at or past the RESTART value, at its start for a plain RESTART, and else past the greatest value any
     * copy handed out.
     */
    private QueryResult alterSequence(Plan plan, SequenceStatement sequence, ParameterValues parameters, ResultSink sink)
            throws StatementFailure {
        int count = database.dataSources().size();
        int defaultIndex = defaultIndex();
        boolean startedImplicit = session.beginImplicit();
        QueryResult result = null;
        int[] all = new int[count];
        try {
            for (int i = 0; i < count; i++) {
                all[i] = i;
                QueryResult altered = session.onSlot(i, onDataSource(sequence, plan.statement().sql(), i), parameters,
                        i == defaultIndex ? sink : ResultSink.DISCARD);
                if (i == defaultIndex) {
                    result = altered;
                }
            }
            if (sequence.kind() == SequenceStatement.Kind.ALTER_SEQUENCE) {
                String[] copies = new String[count];
                for (int i = 0; i < count; i++) {
                    copies[i] = single(i, sequence.alteredCopyQuery());
                }
                if (copies[0] != null && !ownedByBroadcast(sequence.alteredOwnerQuery())) {
                    regrid(sequence, copies);
                }
            }
        } catch (StatementFailure failure) {
            session.failed(startedImplicit);
            throw failure;
        }
        // OWNED BY a sharded table's column is not mirrored: the copies belong to actual tables, and the shell, read
        // from the first actual table (which may not own one), would be made again without it at its next change.
        session.changedSequence(plan, !ownedBySharded(sequence));
        if (startedImplicit) {
            session.commitImplicit(all, sink);
        } else {
            session.written(all);
        }
        return result;
    }

    private void regrid(SequenceStatement sequence, String[] copies) throws StatementFailure {
        int count = copies.length;
        long start = Long.parseLong(copies[0].substring(0, copies[0].indexOf(',')));
        long increment = Long.parseLong(copies[0].substring(copies[0].indexOf(',') + 1, copies[0].lastIndexOf(',')));
        long k = sequence.incrementGiven() || increment % count != 0 ? increment : increment / count;
        long sign = k > 0 ? 1 : -1;
        boolean anyLast = false;
        long past = 0;
        for (String copy : copies) {
            int last = copy == null ? -1 : copy.lastIndexOf(',');
            if (last >= 0 && last + 1 < copy.length()) {
                long value = Long.parseLong(copy.substring(last + 1));
                past = !anyLast ? value : sign > 0 ? Math.max(past, value) : Math.min(past, value);
                anyLast = true;
            }
        }
        try {
            long step = Math.multiplyExact(k, count);
            for (int i = 0; i < count; i++) {
                if (copies[i] == null) {
                    continue;
                }
                long first = Math.addExact(start, Math.multiplyExact(k, i));
                long restart = first;
                if (!sequence.valueArgument().isEmpty()) {
                    restart = firstAtOrPast(first, step, Long.parseLong(sequence.valueArgument().replace(" ", "")));
                } else if (!sequence.plainRestart() && anyLast) {
                    restart = firstAtOrPast(first, step, Math.addExact(past, sign));
                }
                session.onSlot(i, sequence.regrid(step, first, restart), ParameterValues.NONE, ResultSink.DISCARD).close();
            }
        } catch (ArithmeticException e) {
            throw new StatementFailure(ErrorFields.error("22003", "the copies of sequence " + sequence.name() + " cannot be interleaved within bigint"));
        }
    }

    /** The value {@code first + m * step} nearest to {@code target} that is at or past it in the step's direction (m may be negative). */
    private static long firstAtOrPast(long first, long step, long target) {
        return Math.addExact(first, Math.multiplyExact(Math.ceilDiv(Math.subtractExact(target, first), step), step));
    }

    private static boolean hasNotice(QueryResult result, String sqlState) {
        for (ErrorFields each : result.notices()) {
            if (sqlState.equals(each.sqlState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code SELECT setval(seq, value, is_called) [FROM ...]}: the value is found first (a scalar subquery's SELECT, or
     * {@code SELECT value FROM ...}, through the sharded path: {@code max} merges across shards), then every data
     * source's copy is set past it. The answer is the default data source's: the value. The statement's parameters go
     * with both parts: one that a part does not name is bound with the type the client declared, which PostgreSQL
     * accepts.
     */
    private QueryResult setval(SequenceStatement sequence, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        Plan query;
        try {
            query = database.plans().get(sequence.valueQuery());
        } catch (SqlSyntaxException e) {
            throw ShardedSession.syntaxError(e, 0);
        }
        Owner owner = logicalOwner(sequence.sequenceExpression());
        if (owner == null) {
            interleaveAlike(sequence);
        }
        QueryResult values = session.query(query, parameters);
        String value = "NULL";
        String called = sequence.calledArgument();
        int rows = 0;
        try {
            while (values.next()) {
                byte[] bytes = values.row().value(0);
                value = bytes == null ? "NULL" : SqlText.literal(new String(bytes, StandardCharsets.UTF_8));
                if (sequence.calledFromQuery()) {
                    byte[] calledBytes = values.row().value(1);
                    called = calledBytes == null ? "NULL" : SqlText.literal(new String(calledBytes, StandardCharsets.UTF_8));
                }
                rows++;
            }
        } finally {
            values.close();
        }
        if (owner != null) {
            return setvalOfLogical(owner, sequence, rows == 0 && !sequence.fromSubquery() ? null : value, called, parameters, sink);
        }
        if (rows > 1) {
            throw new StatementFailure(sequence.fromSubquery() ? ErrorFields.error("21000", "more than one row returned by a subquery used as an expression")
                    : ErrorFields.error("0A000", "setval over several rows is not supported on the sharded logical database " + database.name(),
                            "set the sequence to the greatest of them"));
        }
        try {
            if (rows == 0 && !sequence.fromSubquery()) {
                return session.onSlot(defaultIndex(), sequence.setvalOnCopy("NULL") + " LIMIT 0", parameters, sink);
            }
            return onEveryDataSource(sequence.setvalOnCopy(value, called), parameters, sink);
        } catch (StatementFailure failure) {
            throw positioned(failure, sequence);
        }
    }

    /**
     * setval of a serial or identity column's sequence of a sharded table, named as on one PostgreSQL (what
     * {@code pg_get_serial_sequence('t_order', 'id')} answers through the proxy: {@code public.t_order_id_seq}): the
     * logical sequence is its actual tables' sequences, each set past the value on its own grid. The answer is the
     * first actual table's: the value. {@code value} null: the query gave no row, setval is not called.
     */
    private QueryResult setvalOfLogical(Owner owner, SequenceStatement sequence, String value, String called, ParameterValues parameters,
                                        ResultSink sink) throws StatementFailure {
        ShardingTable table = owner.table();
        QueryResult result = null;
        for (int j = 0, count = table.nodeCount(); j < count && (value != null || j == 0); j++) {
            DataNode node = table.node(j);
            String sql = SequenceStatement.setvalOnActualTable(node.table(), owner.column(), value == null ? "NULL" : value, called)
                    + (value == null ? " LIMIT 0" : "");
            QueryResult each = session.onSlot(database.dataSourceIndex(node.dataSource()), sql, parameters, j == 0 ? sink : ResultSink.DISCARD);
            if (j == 0) {
                result = each;
            } else {
                each.close();
            }
        }
        return result;
    }

    /**
     * The serial or identity column of a sharded table whose sequence an SQL expression names as on one PostgreSQL
     * ({@code 'public.t_order_id_seq'}, {@code pg_get_serial_sequence('t_order', 'id')}), asked of the catalog database
     * (whose shells own such sequences); null when it names another sequence, or has a parameter.
     */
    private Owner logicalOwner(String expression) throws StatementFailure {
        if (expression == null) {
            return null;
        }
        Plan plan;
        try {
            plan = database.plans().get(SequenceStatement.logicalOwnerQuery(expression));
        } catch (SqlSyntaxException e) {
            return null;
        }
        QueryResult result = session.query(plan, ParameterValues.NONE);
        String tableName;
        String column;
        try {
            if (!result.next() || result.row().value(0) == null || result.row().value(1) == null) {
                return null;
            }
            tableName = new String(result.row().value(0), session.text());
            column = new String(result.row().value(1), session.text());
        } finally {
            result.close();
        }
        return database.rules().find(tableName).orElse(null) instanceof ShardingTable table ? new Owner(table, column) : null;
    }

    /** A string literal of nextval or currval that may name a sharded table's serial sequence: worth asking the catalog about. */
    private Owner literalOwner(String name) throws StatementFailure {
        for (ShardingTable each : database.rules().shardingTables()) {
            if (SequenceStatement.mayBeOwnedBy(name, each.logicTable())) {
                return logicalOwner(SqlText.literal(name));
            }
        }
        return null;
    }

    /**
     * The statement's text with each nextval or currval literal that names a sharded table's serial sequence replaced
     * by the sequence of that table's first actual table on data source {@code slot} (each hands out values of the
     * logical sequence only); null when none does. {@code slot} -1: the default data source when it holds an actual
     * table of the first such table, else that table's first node's; the slot chosen is left in {@code chosen[0]}.
     */
    private String logicalLiterals(Plan plan, SequenceStatement sequence, int slot, int[] chosen) throws StatementFailure {
        String[] names = sequence.literalNames();
        String[] expressions = sequence.literalExpressions();
        String[] replacements = new String[names.length];
        boolean any = false;
        for (int k = 0; k < names.length; k++) {
            Owner owner = names[k].isEmpty() ? logicalOwner(expressions[k]) : literalOwner(names[k]);
            if (owner == null) {
                continue;
            }
            ShardingTable table = owner.table();
            if (slot < 0) {
                slot = database.dataSourceIndex(table.node(0).dataSource());
                for (int j = 0; j < table.nodeCount(); j++) {
                    if (database.dataSourceIndex(table.node(j).dataSource()) == defaultIndex()) {
                        slot = defaultIndex();
                    }
                }
            }
            for (int j = 0; j < table.nodeCount() && replacements[k] == null; j++) {
                DataNode node = table.node(j);
                if (database.dataSourceIndex(node.dataSource()) == slot) {
                    replacements[k] = SequenceStatement.ownedSequence(node.table(), owner.column());
                    any = true;
                }
            }
        }
        chosen[0] = slot;
        return any ? sequence.withLiterals(plan.statement().sql(), replacements) : null;
    }

    /**
     * nextval of a sharded table's serial sequence named as on one PostgreSQL ({@code SELECT
     * nextval('t_order_id_seq')}, no table): the sequence of one of its actual tables hands the value out, on a data
     * source whose connection the session keeps for currval and lastval. Null when no literal names such a sequence.
     */
    private QueryResult nextvalOfLogical(Plan plan, SequenceStatement sequence, ParameterValues parameters, ResultSink sink)
            throws StatementFailure {
        int[] chosen = {-1};
        String sql = logicalLiterals(plan, sequence, -1, chosen);
        if (sql == null) {
            return null;
        }
        QueryResult result = session.onSlot(chosen[0], sql, parameters, sink);
        session.keep(chosen[0]);
        source = chosen[0];
        insertCount = 0; // newer than any DEFAULT's nextval so far
        return result;
    }

    /**
     * An error of the copies' statement with its position (which points into text the client never sent) moved to
     * the client's statement where it points into the sequence argument ({@code relation "s" does not exist}), and
     * dropped elsewhere.
     */
    private static StatementFailure positioned(StatementFailure failure, SequenceStatement sequence) {
        ErrorFields fields = failure.fields();
        String position = fields.field('P');
        if (position.isEmpty() || position.length() > 9) {
            return failure;
        }
        int value = 0;
        for (int i = 0; i < position.length(); i++) {
            char c = position.charAt(i);
            if (c < '0' || c > '9') {
                return failure;
            }
            value = value * 10 + (c - '0');
        }
        int client = sequence.clientPosition(value);
        byte[] codes = fields.codes();
        byte[] newCodes = new byte[client > 0 ? codes.length : codes.length - 1];
        String[] newValues = new String[newCodes.length];
        for (int i = 0, j = 0; i < codes.length; i++) {
            if (codes[i] != 'P') {
                newCodes[j] = codes[i];
                newValues[j++] = fields.values()[i];
            } else if (client > 0) {
                newCodes[j] = 'P';
                newValues[j++] = Integer.toString(client);
            }
        }
        return new StatementFailure(new ErrorFields(newCodes, newValues), failure.getCause());
    }

    /**
     * Before setval: copies of the sequence that are all alike (made before Ashlar interleaved sequences, or on the
     * backends directly) would hand out the same values; they are interleaved first, going on past the greatest value
     * any of them handed out. Copies that differ, or a name that is no sequence somewhere, are left as they are.
     */
    private void interleaveAlike(SequenceStatement sequence) throws StatementFailure {
        String query = sequence.copyQuery();
        if (query == null || ownedByBroadcast(sequence.ownerQuery())) {
            return;
        }
        int count = database.dataSources().size();
        String grid = null;
        long past = Long.MIN_VALUE;
        for (int i = 0; i < count; i++) {
            String copy = single(i, query);
            if (copy == null) {
                return;
            }
            int last = copy.lastIndexOf(',');
            String thisGrid = copy.substring(0, last);
            if (grid != null && !grid.equals(thisGrid)) {
                return;
            }
            grid = thisGrid;
            if (last + 1 < copy.length()) {
                past = Math.max(past, Long.parseLong(copy.substring(last + 1)));
            }
        }
        for (int i = 0; i < count; i++) {
            session.onSlot(i, sequence.interleaveArgument(i, count, past == Long.MIN_VALUE ? null : Long.toString(past)), ParameterValues.NONE,
                    ResultSink.DISCARD).close();
        }
    }

    /**
     * Whether the sequence belongs to a serial or identity column of a broadcast table: every copy of such a table
     * must get the same value for a row, so its sequence's copies hand out the same values and are never interleaved.
     */
    private boolean ownedByBroadcast(String ownerQuery) throws StatementFailure {
        if (ownerQuery == null) {
            return false;
        }
        String owner = single(defaultIndex(), ownerQuery);
        return owner != null && database.rules().find(owner).orElse(null) instanceof io.ashlar.route.rule.BroadcastTable;
    }

    /** Runs one statement on every data source in turn (not atomically: a sequence's changes are not transactional); the default's answer. */
    private QueryResult onEveryDataSource(String sql, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        int defaultIndex = defaultIndex();
        QueryResult result = session.onSlot(defaultIndex, sql, parameters, sink);
        for (int i = 0, count = database.dataSources().size(); i < count; i++) {
            if (i != defaultIndex) {
                session.onSlot(i, sql, parameters, ResultSink.DISCARD).close();
            }
        }
        return result;
    }

    /**
     * currval or lastval with no table: on the connection of the session's last nextval through the proxy, which the
     * session kept; when there was none, on the default data source with its sequence state discarded first, so that
     * the answer is PostgreSQL's "not yet defined in this session" and never another session's value.
     */
    private QueryResult currval(Plan plan, SequenceStatement sequence, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        int implicit = implicitSource(plan, sequence);
        if (implicit >= 0) {
            // The session's own nextval of this transaction, by a DEFAULT, on the connection it still holds: PostgreSQL's answer.
            return session.onSlot(implicit, plan.statement().sql(), parameters, sink);
        }
        int slot = source;
        String answered = slot == SNAPSHOT ? answeredFromSnapshot(plan.statement().sql(), parameters) : null;
        if (slot < 0) {
            slot = defaultIndex();
            if (!session.bound(slot)) {
                session.onSlot(slot, "DISCARD SEQUENCES", ParameterValues.NONE, ResultSink.DISCARD).close();
            }
        }
        if (answered != null) {
            return session.onSlot(slot, answered, parameters, sink);
        }
        String sql = logicalLiterals(plan, sequence, slot, new int[1]);
        return session.onSlot(slot, sql == null ? plan.statement().sql() : sql, parameters, sink);
    }

    /**
     * After a statement whose nextval calls all name their sequence as a string literal ({@code SELECT
     * nextval('t_order_seq')}, Hibernate's SEQUENCE generator) ran on {@code connection}: reads what currval of each
     * such sequence and lastval answer there now, so that the session answers them later itself and the connection goes
     * back to its pool. Keeping it instead (for its sequence state) held one connection of the data source per session
     * that ever called nextval: a pool of applications' sessions emptied the data source's pool, and every client waited
     * for a connection. False (the connection is kept, as before) where the statement names a sequence otherwise, or
     * the values cannot be read.
     */
    boolean snapshot(Plan plan, BackendConnection connection) {
        String[] names = nextvalLiterals(plan.statement().sql());
        if (names == null) {
            return false;
        }
        StringBuilder query = new StringBuilder(32 + names.length * 32).append("SELECT pg_catalog.lastval()");
        for (String name : names) {
            query.append(", pg_catalog.currval(").append(SqlText.literal(name)).append(')');
        }
        java.util.List<String[]> rows;
        try {
            rows = io.ashlar.backend.execute.TextRows.query(connection, query.toString());
        } catch (java.sql.SQLException e) {
            return false; // a nextval the statement did not call (WHERE false): its connection says, as before
        }
        if (rows.size() != 1) {
            return false;
        }
        String[] row = rows.get(0);
        for (String value : row) {
            if (!isInteger(value)) {
                return false;
            }
        }
        lastvalue = row[0];
        for (int i = 0; i < names.length; i++) {
            currvals.put(names[i], row[i + 1]);
        }
        source = SNAPSHOT;
        insertCount = 0; // newer than any DEFAULT's nextval so far
        return true;
    }

    /** Whether a value reads as a bigint's text (it is put into SQL as it is). */
    private static boolean isInteger(String value) {
        if (value == null || value.isEmpty() || value.length() > 20) {
            return false;
        }
        for (int i = value.charAt(0) == '-' ? 1 : 0; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                return false;
            }
        }
        return value.length() > (value.charAt(0) == '-' ? 1 : 0);
    }

    /** DISCARD SEQUENCES (or ALL): currval and lastval know nothing again. */
    void discarded() {
        currvals.clear();
        lastvalue = null;
        if (source == SNAPSHOT) {
            source = -1;
        }
    }

    /**
     * The sequence of each nextval call of the text, where each is {@code nextval('literal')}; null where one is not
     * (a parameter, an expression, a cast): the proxy cannot tell which sequence it advanced.
     */
    static String[] nextvalLiterals(String sql) {
        TokenList tokens = Lexer.tokenize(sql);
        java.util.List<String> names = new java.util.ArrayList<>(1);
        for (int i = 0, n = tokens.size(); i < n; i++) {
            if (tokens.kind(i) != TokenKind.IDENTIFIER || !tokens.textEqualsIgnoreCase(i, "nextval")) {
                continue;
            }
            if (!(i + 3 < n && tokens.is(i + 1, TokenKind.LEFT_PAREN)
                    && tokens.kind(i + 2) == TokenKind.STRING
                    && tokens.is(i + 3, TokenKind.RIGHT_PAREN))) {
                return null;
            }
            String name = tokens.stringValue(i + 2);
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        return names.isEmpty() ? null : names.toArray(new String[0]);
    }

    /**
     * A currval/lastval statement with each call the session's read values answer ({@link #snapshot}) replaced by its
     * value, under the column name PostgreSQL gives the call; null when no call has such a value (the calls left are
     * PostgreSQL's to answer: 55000 where nothing defined them).
     */
    private String answeredFromSnapshot(String sql, ParameterValues parameters) {
        TokenList tokens = Lexer.tokenize(sql);
        StringBuilder result = null;
        int copied = 0;
        for (int i = 0, n = tokens.size(); i + 2 < n; i++) {
            if (tokens.kind(i) != TokenKind.IDENTIFIER || !tokens.is(i + 1, TokenKind.LEFT_PAREN)) {
                continue;
            }
            String value = null;
            String column = null;
            int end = -1;
            if (tokens.textEqualsIgnoreCase(i, "lastval") && tokens.is(i + 2, TokenKind.RIGHT_PAREN)) {
                value = lastvalue;
                column = "lastval";
                end = i + 2;
            } else if (tokens.textEqualsIgnoreCase(i, "currval") && i + 3 < n
                    && tokens.is(i + 3, TokenKind.RIGHT_PAREN)) {
                TokenKind argument = tokens.kind(i + 2);
                if (argument == TokenKind.STRING) {
                    value = currvals.get(tokens.stringValue(i + 2));
                } else if (argument == TokenKind.PARAMETER) {
                    // currval($1) with the name bound as text (pgjdbc's setString): NULL stays NULL, as currval(NULL) is.
                    int number = tokens.parameterNumber(i + 2);
                    if (number >= 1 && number <= parameters.values().length && parameters.formats()[number - 1] == 0
                            && parameters.values()[number - 1] != null) {
                        String known = currvals.get(new String(parameters.values()[number - 1], session.text()));
                        if (known != null) {
                            value = "CASE WHEN $" + number + "::pg_catalog.text IS NULL THEN NULL ELSE " + known + " END";
                        }
                    }
                }
                column = "currval";
                end = i + 3;
            }
            if (value == null) {
                continue;
            }
            int start = tokens.start(i);
            if (i >= 2 && tokens.is(i - 1, TokenKind.DOT)) {
                start = tokens.start(i - 2); // pg_catalog.currval(...)
            }
            if (result == null) {
                result = new StringBuilder(sql.length() + 48);
            }
            // A one-row subquery names its column as the call would have been named.
            result.append(sql, copied, start).append("(SELECT CAST(").append(value).append(" AS pg_catalog.int8) AS ")
                    .append(column).append(')');
            copied = tokens.end(end);
            i = end;
        }
        return result == null ? null : result.append(sql, copied, sql.length()).toString();
    }

    /**
     * After an INSERT that ran on one data source in a transaction: a serial or identity column that took its DEFAULT
     * (left out, DEFAULT, DEFAULT VALUES) had nextval run on that connection for this session, so that lastval, and
     * currval of the serial sequences it advanced, are answered there until the transaction ends, as PostgreSQL
     * answers them (outside a transaction the connection goes back to the pool, and they stay "not yet defined").
     */
    void afterInsert(Plan plan, int slot) {
        long transaction = session.transaction();
        if (transaction < 0) {
            return;
        }
        if (transaction != insertTransaction) {
            insertTransaction = transaction;
            insertCount = 0;
        }
        int at = insertCount % KEPT_INSERTS;
        inserts[at] = plan;
        insertSlots[at] = slot;
        insertedOn[at] = session.held(slot);
        insertCount++;
    }

    /**
     * Where a currval/lastval statement is answered after this transaction's INSERTs called nextval by a DEFAULT: lastval
     * where the newest such INSERT ran, currval('s') where the newest one that advanced serial sequence s ran (every
     * currval naming its sequence as a literal), provided the session still holds that connection. Else -1.
     */
    private int implicitSource(Plan plan, SequenceStatement sequence) {
        if (insertCount == 0 || insertTransaction != session.transaction()) {
            return -1;
        }
        String sql = plan.statement().sql();
        String[] names = sequence.literalNames();
        if (names.length != calls(sql, "currval")) {
            return -1;
        }
        boolean lastval = calls(sql, "lastval") > 0;
        for (int k = insertCount - 1; k >= 0 && k >= insertCount - KEPT_INSERTS; k--) {
            int at = k % KEPT_INSERTS;
            java.util.Set<String> advanced = advancedByDefault(inserts[at]);
            if (advanced == null) {
                continue;
            }
            boolean covers = true;
            for (String each : names) {
                covers &= !each.isEmpty() && advanced.contains(normalisedSequence(each));
            }
            if (covers) {
                return session.held(insertSlots[at]) == insertedOn[at] ? insertSlots[at] : -1;
            }
            if (lastval) {
                return -1; // lastval is the newest one's, which does not answer the currval too
            }
        }
        return -1;
    }

    /**
     * The serial sequences (normalised) an INSERT advanced by its columns' DEFAULTs, empty when only identity columns
     * took theirs; null when no serial or identity column took its DEFAULT.
     */
    private java.util.Set<String> advancedByDefault(Plan plan) {
        if (!(plan.statement().body() instanceof InsertStatement insert)) {
            return null;
        }
        TableReference target = plan.statement().tables().get(insert.target());
        io.ashlar.backend.metadata.LogicalTable table = database.catalog().schema()
                .table(target.name().schema().orElse("public") + "." + target.name().name());
        if (table == null) {
            return null;
        }
        java.util.List<io.ashlar.backend.metadata.ColumnMetadata> columns = table.metadata().columns();
        java.util.Set<String> result = null;
        for (int c = 0; c < columns.size(); c++) {
            io.ashlar.backend.metadata.ColumnMetadata column = columns.get(c);
            java.util.List<String> called = column.nextvalSequences();
            if ((!called.isEmpty() || !column.identity().isEmpty()) && takesDefault(insert, column.name(), c)) {
                if (result == null) {
                    result = new java.util.HashSet<>(2);
                }
                for (String each : called) {
                    result.add(normalisedSequence(each));
                }
            }
        }
        return result;
    }

    /** Whether column {@code name} (at {@code position} of the table) takes its DEFAULT in some row of the INSERT. */
    private static boolean takesDefault(InsertStatement insert, String name, int position) {
        if (insert.defaultValues()) {
            return true;
        }
        int index = insert.columns().isEmpty() ? position : insert.columnIndex(name);
        if (index < 0) {
            return !insert.rows().isEmpty() || insert.query().isPresent();
        }
        for (io.ashlar.parser.statement.ValuesRow row : insert.rows()) {
            if (index >= row.values().size() ? insert.columns().isEmpty()
                    : row.values().get(index).kind() == io.ashlar.parser.statement.InsertValueKind.DEFAULT) {
                return true;
            }
        }
        return false;
    }

    /** A sequence name as currval's text argument or a default names it: unquoted, lower case, without "public.". */
    private static String normalisedSequence(String name) {
        String result = name.strip();
        if (result.indexOf('"') >= 0) {
            result = result.replace("\"", "");
        } else {
            result = result.toLowerCase(java.util.Locale.ROOT);
        }
        return result.startsWith("public.") ? result.substring(7) : result;
    }

    /** How many times {@code function(} is called in the text (case-insensitive, spaces before the parenthesis allowed). */
    private static int calls(String sql, String function) {
        int count = 0;
        int n = sql.length();
        for (int i = 0; i < n; i++) {
            if (sql.regionMatches(true, i, function, 0, function.length())) {
                int j = i + function.length();
                while (j < n && Character.isWhitespace(sql.charAt(j))) {
                    j++;
                }
                if (j < n && sql.charAt(j) == '(') {
                    count++;
                }
            }
        }
        return count;
    }

    /**
     * After a routed statement that used sequences: a nextval's data source is where currval is answered; a CREATE
     * TABLE of a sharded table with serial or identity columns interleaves the sequences of its actual tables, node j
     * of n as copy j of n (two actual tables on one data source have a sequence each).
     */
    void after(Plan plan, SequenceStatement sequence, int[] dataSources, QueryResult result) throws StatementFailure {
        if (sequence.kind() == SequenceStatement.Kind.NEXTVAL && dataSources.length > 0) {
            source = dataSources[dataSources.length - 1];
            insertCount = 0; // newer than any DEFAULT's nextval so far
            return;
        }
        if (sequence.kind() == SequenceStatement.Kind.ALTER_TABLE) {
            alteredTable(plan, sequence);
            return;
        }
        if (sequence.kind() != SequenceStatement.Kind.CREATE_TABLE || hasNotice(result, "42P07")) {
            return;
        }
        ShardingTable table = target(plan);
        if (table != null) {
            int count = table.nodeCount();
            for (int j = 0; j < count; j++) {
                DataNode node = table.node(j);
                session.onSlot(database.dataSourceIndex(node.dataSource()), SequenceStatement.interleaveOwned(node.table(), j, count),
                        ParameterValues.NONE, ResultSink.DISCARD).close();
            }
        }
    }

    /**
     * After ALTER TABLE of a sharded table: the sequences it added to each actual table (serial or identity columns)
     * are interleaved, and a RESTART WITH of an identity column sets each actual table's sequence as setval(seq, v,
     * false) would.
     */
    private void alteredTable(Plan plan, SequenceStatement sequence) throws StatementFailure {
        String[] before = ownedBefore;
        ownedBefore = null;
        ShardingTable table = target(plan);
        if (table == null) {
            return;
        }
        int count = table.nodeCount();
        String past = null;
        if (before != null) {
            // A column added to rows already there took its values from each actual table's new sequence: every copy
            // goes on past the greatest of them.
            long greatest = Long.MIN_VALUE;
            for (int j = 0; j < count; j++) {
                DataNode node = table.node(j);
                String value = single(database.dataSourceIndex(node.dataSource()), SequenceStatement.lastValueOwnedSince(node.table(), before[j]));
                if (value != null) {
                    greatest = Math.max(greatest, Long.parseLong(value));
                }
            }
            past = greatest == Long.MIN_VALUE ? null : Long.toString(greatest);
        }
        for (int j = 0; j < count; j++) {
            DataNode node = table.node(j);
            int slot = database.dataSourceIndex(node.dataSource());
            if (before != null) {
                session.onSlot(slot, SequenceStatement.interleaveOwnedSince(node.table(), before[j], j, count, past), ParameterValues.NONE,
                        ResultSink.DISCARD).close();
            }
            if (!sequence.valueArgument().isEmpty()) {
                session.onSlot(slot, sequence.restartOnCopy(node.table()), ParameterValues.NONE, ResultSink.DISCARD).close();
            }
        }
    }

    /** The OIDs of the sequences each actual table of a sharded table owns now. */
    private String[] ownedSequences(ShardingTable table) throws StatementFailure {
        int count = table.nodeCount();
        String[] result = new String[count];
        for (int j = 0; j < count; j++) {
            DataNode node = table.node(j);
            String owned = single(database.dataSourceIndex(node.dataSource()), SequenceStatement.ownedSequences(node.table()));
            result[j] = owned == null ? "0" : owned;
        }
        return result;
    }

    /** The one value a query of one row and column gives on a data source, as text; null for NULL or no row. */
    private String single(int slot, String sql) throws StatementFailure {
        QueryResult result = session.onSlot(slot, sql, ParameterValues.NONE, ResultSink.DISCARD);
        try {
            byte[] value = result.next() ? result.row().value(0) : null;
            return value == null ? null : new String(value, StandardCharsets.US_ASCII);
        } finally {
            result.close();
        }
    }

    /** The sharded table a DDL statement is about, when it has several actual tables; else null. */
    private ShardingTable target(Plan plan) {
        for (TableReference each : plan.statement().tables()) {
            if (each.role() == TableRole.DDL_TARGET) {
                return database.rules().find(each.name().name()).orElse(null) instanceof ShardingTable table && table.nodeCount() > 1 ? table : null;
            }
        }
        return null;
    }

    private int defaultIndex() {
        return database.dataSourceIndex(database.defaultDataSource().name());
    }
}
