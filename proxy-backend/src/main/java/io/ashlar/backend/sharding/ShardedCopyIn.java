package io.ashlar.backend.sharding;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.parser.statement.InsertColumn;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.rewrite.RewriteResult;
import io.ashlar.rewrite.RewrittenUnit;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import io.ashlar.route.rule.DataNode;
import io.ashlar.route.rule.RowRouter;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import io.ashlar.backend.execute.CopyStream;

/**
 * {@code COPY t FROM STDIN} into a table sharded over several data nodes: the client's data is split into rows as it
 * arrives, each row's sharding values are read and routed as an INSERT of the same row would be, and the row's bytes,
 * unchanged, go to the COPY of its node's actual table, which carries the client's own options. The frontend drives
 * it as it drives a backend's {@link CopyStream.In}: CopyInResponse from {@link #getFormat()} and {@link #getFieldCount()},
 * {@link #writeToCopy} per CopyData message (a message may end anywhere in a row), {@link #endCopy()} on CopyDone,
 * {@link #cancelCopy()} on CopyFail.
 *
 * <p>Shard COPYs. A connection runs one COPY at a time, and several nodes may share a data source, so rows are
 * buffered per node and sent when a node's buffer fills (or at the end); a node's COPY starts when its first rows are
 * sent, and starting one on a data source first ends the COPY open there (a node may then run several COPYs; their
 * row counts add up). The first node's COPY starts at once, so that the shard checks the statement (table, columns,
 * options) and gives the column count before the client sends anything, as PostgreSQL does.
 *
 * <p>Header. With {@code HEADER} the client's first line is not a row: it is sent first in every shard COPY, whose
 * statement keeps {@code HEADER} (so {@code HEADER MATCH} is still checked by every shard).
 *
 * <p>Errors. A row that cannot be routed fails the COPY with the line number, as PostgreSQL names lines
 * ({@code COPY t_order, line 7}): 22023 when no node takes its values or the algorithm cannot use them, 0A000 for a
 * NULL sharding value or a {@code DEFAULT} marker; a row missing fields goes to the first node, whose shard reports it
 * as PostgreSQL would.
 * Data errors are the shards' own (22P02, 23505, ..., with the actual table and the line within that shard's COPY).
 * After the first error every open shard COPY is cancelled, the rest of the data is discarded, and
 * {@link #endCopy()} throws the error; the session then rolls back the transaction all shard COPYs ran in, so no row
 * stays anywhere. In binary format ({@link BinaryCopyRows}) the tuples are split the same way, their sharding values
 * read as binary parameters of the actual table's column types, and the file header starts every shard COPY.
 *
 * <p>A column list without a sharding column. As an INSERT that leaves it out: the table's key generator fills the
 * column when it is the table's generated key (text and CSV: the column is added to every shard COPY's list and each
 * row gets a new key as its last field); else each row is refused as it comes, 23502 where the column is NOT NULL
 * without a default (PostgreSQL's error for that row), 0A000 otherwise. Either way the COPY starts first and the
 * client's data is read to its end, as PostgreSQL reads it: a client sending its data right after the statement
 * (psql running a script) never has it taken for statements.
 *
 * <p>One session thread drives an instance; nothing here is shared.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html">COPY</a>
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-COPY">55.2.6. COPY Operations</a>
 */
public final class ShardedCopyIn implements CopyStream.In {

    private static final RouteEngine ROUTER = new RouteEngine();

    /** A node's buffer is sent when it holds this much, or less when there are many nodes ({@link #TOTAL_BUFFER}). */
    private static final int MAX_NODE_BUFFER = 256 * 1024;

    private static final int MIN_NODE_BUFFER = 16 * 1024;

    /** What all node buffers together may hold, about. */
    private static final int TOTAL_BUFFER = 4 * 1024 * 1024;

    private static final byte[] EMPTY = new byte[0];
    /** A shard's COPY context: its line is the row's place in what that shard got, not in what the client sent. */
    private static final java.util.regex.Pattern SHARD_LINE = java.util.regex.Pattern.compile("^(COPY ([^,\\n]+)), line \\d+");

    private final String table;
    private final ShardingTable rule;
    /** Per sharding column: its number type's name, for PostgreSQL's input error ({@link #invalidNumber}); else null. */
    private final String[] numericTypes;
    /** Per sharding column: whether the logical table declares it NOT NULL (a NULL is then PostgreSQL's 23502). */
    private final boolean[] notNull;
    /** Per sharding column: whether the logical table gives it a default (or identity), which only the shard knows. */
    private final boolean[] defaulted;
    /** Per sharding column: whether the COPY's column list leaves it out and no key is generated for it. */
    private final boolean[] omitted;
    /** The generated key column's name, when the column list leaves it out (text and CSV); null otherwise. */
    private final byte[] keyName;
    /** The delimiter before a generated key, and the quote around it (CSV), else -1. */
    private final byte keyDelimiter;
    private final int keyQuote;
    /** The generated key's sharding column id, or -1 (no key generated, or the key column is no sharding column). */
    private final int keyColumnId;
    /** Binary format without the generated key column, which only text and CSV get: every tuple is refused. */
    private final boolean binaryWithoutKey;
    /** Text and CSV with a generated key: a row with its key appended ({@link #withField}), reused, and its length. */
    private byte[] keyedRow = EMPTY;
    private int keyedLength;
    private final List<String> shardingColumns;
    /** The node of the first row, and whether any row went to another: a shard's lines are the client's until then. */
    private int firstNode = -1;
    private boolean spread;
    private final String[] nodeSql;
    private final int[] nodeDataSource;
    private final CopyConnections connections;
    private final BackendConnection[] connectionOf;
    private final CopyStream.In[] openCopy;
    private final int[] openNode;
    private final byte[][] buffers;
    private final int[] lengths;
    private final int flushAt;
    /** Text and CSV: the rows and their sharding values; null in binary format. */
    private final CopyRowParser parser;
    private final CopyFieldReader reader;
    /** Binary format: the tuples and their sharding values; null in text and CSV. */
    private final BinaryCopyRows binaryRows;
    private final int format;
    private final Object[] values;
    private final int fieldCount;
    private final int[] fieldFormats;
    private byte[] header = EMPTY;
    private boolean hasHeader;
    private long rows;
    private long handled = -1;
    private SQLException failure;
    private boolean active = true;
    private boolean succeeded;

    private ShardedCopyIn(String table, ShardingTable rule, String[] nodeSql, int[] nodeDataSource, int dataSourceCount,
                          CopyConnections connections, BackendConnection first, CopyStream.In firstCopy, CopyOptions options,
                          CopyFieldReader reader, int[] binaryPositions, int[] binaryTypes, ShardingColumns columns, boolean[] omitted,
                          KeyColumn key) {
        this.table = table;
        this.rule = rule;
        this.numericTypes = columns.numericTypes();
        this.notNull = columns.notNull();
        this.defaulted = columns.defaulted();
        this.omitted = omitted;
        boolean generated = key != null && binaryPositions == null;
        this.keyColumnId = generated ? rule.columnId(key.column()) : -1;
        this.binaryWithoutKey = key != null && binaryPositions != null;
        this.shardingColumns = rule.shardingColumns();
        this.nodeSql = nodeSql;
        this.nodeDataSource = nodeDataSource;
        this.connections = connections;
        this.connectionOf = new BackendConnection[dataSourceCount];
        this.openCopy = new CopyStream.In[dataSourceCount];
        this.openNode = new int[dataSourceCount];
        Arrays.fill(openNode, -1);
        connectionOf[nodeDataSource[0]] = first;
        openCopy[nodeDataSource[0]] = firstCopy;
        openNode[nodeDataSource[0]] = 0;
        int nodes = nodeSql.length;
        this.buffers = new byte[nodes][];
        Arrays.fill(buffers, EMPTY);
        this.lengths = new int[nodes];
        this.flushAt = Math.max(MIN_NODE_BUFFER, Math.min(MAX_NODE_BUFFER, TOTAL_BUFFER / nodes));
        this.format = firstCopy.getFormat();
        if (binaryPositions != null) {
            this.parser = null;
            this.reader = null;
            this.binaryRows = new BinaryCopyRows(binaryPositions, binaryTypes, new BinarySplitter(),
                    first.textCharset());
        } else {
            this.parser = new CopyRowParser(options, table, new Splitter());
            this.reader = reader;
            this.binaryRows = null;
        }
        this.keyName = generated ? key.column().getBytes(StandardCharsets.US_ASCII) : null;
        this.keyDelimiter = options.delimiter();
        this.keyQuote = options.isCsv() ? options.quote() & 0xff : -1;
        this.values = new Object[shardingColumns.size()];
        // The shard's COPY has the generated key column too, last; the client's has not.
        this.fieldCount = firstCopy.getFieldCount() - (keyName == null ? 0 : 1);
        this.fieldFormats = new int[fieldCount];
        for (int i = 0; i < fieldCount; i++) {
            fieldFormats[i] = firstCopy.getFieldFormat(i);
        }
    }

    /**
     * Whether {@code statement} is a COPY this class runs: {@code COPY t [(columns)] FROM STDIN} into a table that the
     * rules shard over more than one data node. (A table of one node takes the plain single-shard COPY.)
     */
    public static boolean handles(ShardingRules rules, AnalyzedStatement statement) {
        if (!(statement.body() instanceof CopyStatement copy) || !copy.from() || !copy.stdio() || copy.table().isEmpty()) {
            return false;
        }
        Optional<RuleTable> found = rules.find(statement.tables().get(copy.table().getAsInt()).name().name());
        return found.isPresent() && found.get() instanceof ShardingTable sharded && sharded.nodeCount() > 1;
    }

    /**
     * Starts a sharded COPY: routes and rewrites the statement (one COPY per data node, the client's options kept),
     * reads the table's columns from the first node's shard when the statement lists none, and starts the first
     * node's COPY. The caller then drives the result as a {@link CopyStream.In}, and afterwards commits the session's
     * transaction if {@link #succeeded()}, or rolls it back.
     *
     * @param plan        a statement for which {@link #handles} is true
     * @param connections the session's connections, each inside its transaction
     * @throws SQLException the shard's error for a bad statement; 0A000 for an encoding whose characters embed ASCII
     *                      bytes
     */
    public static ShardedCopyIn open(LogicalDatabase database, Plan plan, CopyConnections connections) throws SQLException {
        AnalyzedStatement statement = plan.statement();
        ShardingRules rules = database.rules();
        if (!handles(rules, statement)) {
            throw new IllegalArgumentException("not a COPY FROM STDIN into a table of several shards: " + statement.sql());
        }
        CopyStatement copy = (CopyStatement) statement.body();
        TableReference reference = statement.tables().get(copy.table().getAsInt());
        ShardingTable rule = (ShardingTable) rules.find(reference.name().name()).orElseThrow();
        String table = reference.name().name();
        int nodes = rule.nodeCount();
        int[] nodeDataSource = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            DataNode node = rule.node(i);
            nodeDataSource[i] = database.dataSourceIndex(node.dataSource());
            if (nodeDataSource[i] < 0) {
                throw CopyErrors.error("XX000", "sharded table " + table + " has a node on unknown data source " + node.dataSource());
            }
        }
        BackendConnection first = connection(connections, nodeDataSource[0]);
        CopyOptions options = null;
        SQLException problem = null;
        boolean binaryFormat = false;
        try {
            options = CopyOptions.parse(statement.sql(), copy, first.parameterStatuses().getOrDefault("client_encoding", "UTF8"));
            binaryFormat = options.format() == CopyOptions.Format.BINARY;
        } catch (SQLException e) {
            problem = e;
        }
        KeyColumn key = problem == null ? KeyColumn.leftOut(rule, copy, binaryFormat) : null;
        if (key != null && !binaryFormat) {
            // Every shard COPY lists the key column last: the rows get their keys there.
            plan = database.plans().get(key.listed(statement.sql(), copy));
            statement = plan.statement();
            copy = (CopyStatement) statement.body();
            reference = statement.tables().get(copy.table().getAsInt());
        }
        RewriteResult rewrite;
        try {
            RouteResult route = ROUTER.route(statement, RouteParameters.NONE, rules);
            rewrite = plan.rewriter().rewrite(route, RouteParameters.NONE);
        } catch (RouteException e) {
            throw CopyErrors.error(e.sqlState(), e.getMessage());
        }
        String[] nodeSql = new String[nodes];
        for (int i = 0; i < nodes; i++) {
            nodeSql[i] = unitSql(rewrite, rule, rule.node(i));
        }
        CopyFieldReader reader = null;
        boolean[] omitted = null;
        int[] binaryPositions = null;
        int[] binaryTypes = null;
        if (problem == null) {
            // Binary tuples carry no types: the sharding columns' are the actual table's.
            List<String[]> columns = copy.columns().isEmpty() || binaryFormat ? tableColumns(first, reference, rule.node(0).table()) : null;
            List<String> rowColumns = copy.columns().isEmpty() ? firsts(columns) : names(copy.columns());
            RowRouter router = rule.rowRouter(rowColumns);
            int[] positions = new int[router.columnCount()];
            int[] types = new int[positions.length];
            boolean[] forceNull = new boolean[positions.length];
            boolean[] forceNotNull = new boolean[positions.length];
            omitted = new boolean[positions.length];
            for (int i = 0; i < positions.length; i++) {
                positions[i] = router.position(i);
                String column = rule.shardingColumns().get(i);
                if (key != null && key.column().equalsIgnoreCase(column)) {
                    // Not in the client's rows: each row's key is generated.
                    positions[i] = -1;
                }
                omitted[i] = positions[i] < 0 && !(key != null && key.column().equalsIgnoreCase(column));
                forceNull[i] = options.forceNull(column);
                forceNotNull[i] = options.forceNotNull(column);
                if (binaryFormat) {
                    types[i] = typeOf(columns, column);
                }
            }
            if (binaryFormat) {
                binaryPositions = positions;
                binaryTypes = types;
            } else {
                reader = new CopyFieldReader(options, positions, forceNull, forceNotNull);
            }
        }
        CopyStream.In firstCopy = start(first, nodeSql[0]);
        if (problem == null && (firstCopy.getFormat() != 0) != binaryFormat) {
            problem = CopyErrors.error("XX000", "the shard's COPY of " + table + " is in another format than the statement's");
        }
        if (problem != null) {
            cancel(firstCopy);
            throw problem;
        }
        return new ShardedCopyIn(table, rule, nodeSql, nodeDataSource, database.dataSources().size(), connections, first,
                firstCopy, options, reader, binaryPositions, binaryTypes, shardingColumns(database, reference, rule), omitted, key);
    }

    /** Whether the COPY ended with CopyDone and every shard COPY succeeded: the session may commit. */
    public boolean succeeded() {
        return succeeded;
    }

    // ------------------------------------------------------------------ CopyStream.In

    @Override
    public int getFieldCount() {
        return fieldCount;
    }

    /** 0 for text and CSV, 1 for binary: the shards'. */
    @Override
    public int getFormat() {
        return format;
    }

    @Override
    public int getFieldFormat(int field) {
        return fieldFormats[field];
    }


    /** Whether the COPY still takes data (it ended, succeeded or not, otherwise). */
    public boolean isActive() {
        return active;
    }

    /** Reads one CopyData message. After an error the data is discarded; {@link #endCopy()} reports the error. */
    @Override
    public void writeToCopy(byte[] buf, int off, int siz) throws SQLException {
        checkActive();
        if (failure != null) {
            return;
        }
        try {
            if (binaryRows != null) {
                binaryRows.feed(buf, off, siz);
            } else {
                parser.feed(buf, off, siz);
            }
        } catch (SQLException e) {
            fail(e);
        }
    }



    /**
     * The data is complete (CopyDone): sends the last rows, ends every shard COPY and answers the number of rows
     * copied, the sum of the shards' counts.
     *
     * @throws SQLException the first error of the COPY, a row's or a shard's
     */
    @Override
    public long endCopy() throws SQLException {
        checkActive();
        active = false;
        if (failure == null) {
            try {
                if (binaryRows != null) {
                    binaryRows.finish();
                } else {
                    parser.finish();
                }
                for (int dataSource = 0; dataSource < openCopy.length; dataSource++) {
                    if (openCopy[dataSource] != null) {
                        flush(openNode[dataSource]);
                    }
                }
                for (int node = 0; node < nodeSql.length; node++) {
                    flush(node);
                }
                for (int dataSource = 0; dataSource < openCopy.length; dataSource++) {
                    if (openCopy[dataSource] != null) {
                        endOpen(dataSource);
                    }
                }
            } catch (SQLException e) {
                fail(e);
            }
        }
        release();
        if (failure != null) {
            throw failure;
        }
        succeeded = true;
        handled = rows;
        return rows;
    }

    /** The client gave up (CopyFail): cancels every shard COPY; nothing is kept once the session rolls back. */
    @Override
    public void cancelCopy() throws SQLException {
        if (!active) {
            return;
        }
        active = false;
        if (failure == null) {
            fail(CopyErrors.error("57014", "COPY from stdin failed"));
        }
        release();
    }

    /** The rows copied, once {@link #endCopy()} succeeded; -1 before. */
    @Override
    public long getHandledRowCount() {
        return handled;
    }

    @Override
    public String toString() {
        return "ShardedCopyIn[" + table + ", " + nodeSql.length + " nodes, " + rows + " rows ended"
                + (failure == null ? "" : ", failed: " + failure.getMessage()) + "]";
    }

    // ------------------------------------------------------------------ rows to nodes

    /** Routes each line the parser completes. */
    private final class Splitter implements CopyRowParser.Lines {

        @Override
        public void header(byte[] buffer, int start, int end) throws SQLException {
            if (keyName != null) {
                // The shard's column list ends with the key column: so does its header (HEADER MATCH checks it).
                int contentEnd = end;
                while (contentEnd > start && (buffer[contentEnd - 1] == '\n' || buffer[contentEnd - 1] == '\r')) {
                    contentEnd--;
                }
                header = Arrays.copyOf(withField(buffer, start, contentEnd, end, keyName), keyedLength);
            } else {
                header = Arrays.copyOfRange(buffer, start, end);
            }
            hasHeader = true;
            for (CopyStream.In each : openCopy) {
                if (each != null) {
                    each.writeToCopy(header, 0, header.length);
                }
            }
        }

        @Override
        public void row(byte[] buffer, int start, int contentEnd, int end, long line) throws SQLException {
            int node;
            Comparable<?> key = keyName == null ? null : rule.generateKey();
            if (keyColumnId >= 0) {
                values[keyColumnId] = key;
            }
            switch (reader.read(buffer, start, contentEnd, values)) {
                // A row missing fields gets no key: the shard names the first missing column, as PostgreSQL does.
                case CopyFieldReader.SHORT -> {
                    append(0, buffer, start, end);
                    return;
                }
                case CopyFieldReader.DEFAULT -> throw CopyErrors.atLine("0A000", "DEFAULT marker in a sharding column of "
                        + "sharded table " + table, "a row without a sharding value has no shard", where(line));
                default -> node = route(line);
            }
            if (key == null) {
                append(node, buffer, start, end);
                return;
            }
            byte[] row = withField(buffer, start, contentEnd, end, String.valueOf(key).getBytes(StandardCharsets.US_ASCII));
            append(node, row, 0, keyedLength);
        }
    }

    /** Routes each tuple of binary data; the file header starts every shard COPY, as a CSV header does. */
    private final class BinarySplitter implements BinaryCopyRows.Tuples {

        @Override
        public void header(byte[] buffer, int start, int end) throws SQLException {
            new Splitter().header(buffer, start, end);
        }

        @Override
        public void tuple(byte[] buffer, int start, int end, Object[] read, long tuple) throws SQLException {
            if (binaryWithoutKey) {
                throw CopyErrors.atLine("0A000", "COPY in binary format into sharded table " + table + " without its generated key column "
                        + rule.keyGenerateColumn().orElse("") + " is not supported", "list the column and give its values, or use FORMAT text"
                        + " or FORMAT csv, where Ashlar generates the keys", where(tuple));
            }
            int node = 0;
            if (read != null) {
                System.arraycopy(read, 0, values, 0, values.length);
                for (Object each : values) {
                    if (each instanceof io.ashlar.route.UnreadableValue unreadable) {
                        throw CopyErrors.atLine(unreadable.sqlState(), "sharding value of COPY into sharded table " + table + " "
                                + unreadable.reason(), "", where(tuple));
                    }
                }
                node = route(tuple);
            }
            append(node, buffer, start, end);
        }
    }

    private int route(long line) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null && omitted[i]) {
                // A column left out takes its default, which the proxy does not evaluate: only one without is NULL for sure.
                throw notNull[i] && !defaulted[i]
                        ? CopyErrors.atLine("23502", "null value in column \"" + shardingColumns.get(i) + "\" of relation \""
                                + table + "\" violates not-null constraint", "", where(line))
                        : CopyErrors.atLine("0A000", "COPY into sharded table " + table + " without sharding column " + shardingColumns.get(i)
                                + " is not supported", "list " + shardingColumns.get(i) + " among the columns of the COPY and give its value"
                                + " in every row", where(line));
            }
            if (values[i] == null) {
                // Into a NOT NULL column the row fails on any shard, as PostgreSQL's COPY says; else it has no shard to go to.
                throw notNull[i]
                        ? CopyErrors.atLine("23502", "null value in column \"" + shardingColumns.get(i) + "\" of relation \""
                                + table + "\" violates not-null constraint", "", where(line))
                        : CopyErrors.atLine("0A000", "NULL in sharding column " + shardingColumns.get(i) + " of COPY into sharded table "
                                + table, "a row without a sharding value has no shard", where(line));
            }
        }
        int node;
        try {
            node = rule.routeRow(values);
        } catch (RouteException e) {
            throw CopyErrors.atLine(e.sqlState(), e.getMessage(), "", where(line));
        }
        if (node == ShardingTable.NO_NODE) {
            throw CopyErrors.atLine("22023", "no data node of sharded table " + table + " takes " + describeValues(), "", where(line));
        }
        if (node == ShardingTable.UNUSABLE_VALUE) {
            SQLException invalid = invalidNumber(line);
            if (invalid != null) {
                throw invalid;
            }
            // As an INSERT of the row is refused: text the algorithm cannot use ('x' for MOD) is 22023, named by the algorithm.
            throw CopyErrors.atLine("22023", "cannot route sharded table " + table + " by " + describeValues() + ": "
                    + rule.unusableReason(values), "", where(line));
        }
        if (node < 0) {
            throw CopyErrors.atLine("0A000", "COPY into sharded table " + table + " whose strategies (" + rule.describe()
                    + ") do not pick one data node for " + describeValues(), "", where(line));
        }
        return node;
    }

    /**
     * The table's generated key column, which the COPY's column list leaves out, as an INSERT leaving it out gets its
     * key generated.
     */
    private record KeyColumn(String column) {

        /**
         * The key column a COPY's explicit column list leaves out; null when it lists it, lists none, or the table has
         * none, and in binary format when it is no sharding column (the column then takes its default, as before).
         */
        static KeyColumn leftOut(ShardingTable rule, CopyStatement copy, boolean binary) {
            String column = rule.keyGenerateColumn().orElse(null);
            if (column == null || copy.columns().isEmpty() || binary && rule.columnId(column) < 0) {
                return null;
            }
            for (InsertColumn each : copy.columns()) {
                if (each.name().equalsIgnoreCase(column)) {
                    return null;
                }
            }
            return new KeyColumn(column);
        }

        /** The statement with the key column added after the last column of its list. */
        String listed(String sql, CopyStatement copy) {
            int end = copy.columns().get(copy.columns().size() - 1).range().end();
            return sql.substring(0, end) + ", " + io.ashlar.rewrite.template.Identifiers.write(column, false) + sql.substring(end);
        }
    }

    private String describeValues() {
        StringBuilder result = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            result.append(i == 0 ? "" : ", ").append(shardingColumns.get(i)).append(" = ").append(values[i]);
        }
        return result.toString();
    }

    /**
     * What the logical table says of its sharding columns, in the rule's order: each one's type where it is a number
     * type PostgreSQL names in its input errors ({@code integer}, {@code bigint}, {@code smallint}, {@code numeric}),
     * else null; whether it is NOT NULL; and whether it has a default or is an identity column.
     */
    private record ShardingColumns(String[] numericTypes, boolean[] notNull, boolean[] defaulted) {
    }

    private static ShardingColumns shardingColumns(LogicalDatabase database, TableReference reference, ShardingTable rule) {
        List<String> columns = rule.shardingColumns();
        ShardingColumns result = new ShardingColumns(new String[columns.size()], new boolean[columns.size()], new boolean[columns.size()]);
        String schema = reference.name().schema().orElse("public");
        io.ashlar.backend.metadata.LogicalTable logical = database.catalog().schema().table(schema + "." + reference.name().name());
        if (logical == null) {
            return result;
        }
        for (io.ashlar.backend.metadata.ColumnMetadata each : logical.metadata().columns()) {
            for (int i = 0; i < columns.size(); i++) {
                if (each.name().equalsIgnoreCase(columns.get(i))) {
                    String type = each.type();
                    int bracket = type.indexOf('(');
                    type = bracket < 0 ? type : type.substring(0, bracket);
                    result.numericTypes()[i] = switch (type) {
                        case "integer", "bigint", "smallint", "numeric" -> type;
                        default -> null;
                    };
                    result.notNull()[i] = each.notNull();
                    result.defaulted()[i] = !each.defaultExpression().isEmpty() || !each.identity().isEmpty();
                }
            }
        }
        return result;
    }

    /**
     * PostgreSQL's error for text in a number column that is no number, as its COPY reports it (22P02, the column and
     * value in the context); null when no sharding value is such.
     */
    private SQLException invalidNumber(long line) {
        for (int i = 0; i < values.length; i++) {
            if (numericTypes[i] != null && values[i] instanceof String text) {
                return CopyErrors.atLine("22P02", "invalid input syntax for type " + numericTypes[i] + ": \"" + text + "\"", "",
                        where(line) + ", column " + shardingColumns.get(i) + ": \"" + text + "\"");
            }
        }
        return null;
    }

    /**
     * The line {@code [start, end)} with one more field before its line end {@code [contentEnd, end)}, in
     * {@link #keyedRow} (valid until the next call; its length in {@link #keyedLength}).
     */
    private byte[] withField(byte[] line, int start, int contentEnd, int end, byte[] field) {
        int length = end - start + 1 + field.length + (keyQuote < 0 ? 0 : 2);
        if (keyedRow.length < length) {
            keyedRow = new byte[Math.max(length, 2 * keyedRow.length)];
        }
        byte[] result = keyedRow;
        int at = contentEnd - start;
        System.arraycopy(line, start, result, 0, at);
        result[at++] = keyDelimiter;
        if (keyQuote >= 0) {
            result[at++] = (byte) keyQuote;
        }
        System.arraycopy(field, 0, result, at, field.length);
        at += field.length;
        if (keyQuote >= 0) {
            result[at++] = (byte) keyQuote;
        }
        System.arraycopy(line, contentEnd, result, at, end - contentEnd);
        keyedLength = length;
        return result;
    }

    private String where(long line) {
        return "COPY " + table + ", line " + line;
    }

    /** Adds a row, line end included, to its node's buffer; a full buffer goes to the node's COPY. */
    private void append(int node, byte[] row, int start, int end) throws SQLException {
        if (!spread && node != firstNode) {
            spread = firstNode >= 0;
            firstNode = node;
        }
        int length = end - start;
        if (length >= flushAt) {
            flush(node);
            nodeCopy(node).writeToCopy(row, start, length);
            return;
        }
        int used = lengths[node];
        byte[] buffer = buffers[node];
        if (used + length > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(used + length, Math.min(flushAt + length, Math.max(8192, buffer.length * 2))));
            buffers[node] = buffer;
        }
        System.arraycopy(row, start, buffer, used, length);
        lengths[node] = used + length;
        if (lengths[node] >= flushAt) {
            flush(node);
        }
    }

    private void flush(int node) throws SQLException {
        int length = lengths[node];
        if (length == 0) {
            return;
        }
        lengths[node] = 0;
        nodeCopy(node).writeToCopy(buffers[node], 0, length);
    }

    /** The COPY of {@code node}, started if needed, after ending another node's COPY on the same data source. */
    private CopyStream.In nodeCopy(int node) throws SQLException {
        int dataSource = nodeDataSource[node];
        if (openNode[dataSource] == node) {
            return openCopy[dataSource];
        }
        if (openCopy[dataSource] != null) {
            // Rows buffered for the node whose COPY is open go in it before it ends.
            int other = openNode[dataSource];
            int pending = lengths[other];
            if (pending > 0) {
                lengths[other] = 0;
                openCopy[dataSource].writeToCopy(buffers[other], 0, pending);
            }
            endOpen(dataSource);
        }
        BackendConnection connection = connectionOf[dataSource];
        if (connection == null) {
            connection = connection(connections, dataSource);
            connectionOf[dataSource] = connection;
        }
        CopyStream.In result = start(connection, nodeSql[node]);
        openCopy[dataSource] = result;
        openNode[dataSource] = node;
        if (hasHeader) {
            result.writeToCopy(header, 0, header.length);
        }
        return result;
    }

    private void endOpen(int dataSource) throws SQLException {
        CopyStream.In copy = openCopy[dataSource];
        openCopy[dataSource] = null;
        openNode[dataSource] = -1;
        rows += copy.endCopy();
    }

    /** Keeps the first error and cancels every shard COPY still open; the data that follows is discarded. */
    private void fail(SQLException e) {
        if (failure == null) {
            failure = withoutShardLine(e);
        }
        for (int dataSource = 0; dataSource < openCopy.length; dataSource++) {
            CopyStream.In copy = openCopy[dataSource];
            if (copy != null) {
                openCopy[dataSource] = null;
                openNode[dataSource] = -1;
                cancel(copy);
            }
        }
        release();
    }

    /**
     * A shard's error with the line number dropped from its context ({@code COPY t_order_0, line 2: "6004..."} was
     * line 4 of the client's data), once rows went to more than one actual table (until then a shard's lines are the
     * client's): the row's text stays where the shard gave it, which names the row. A context that
     * names the logical table is the proxy's own ({@link #where}: the client's lines) or a shard's whose actual table
     * has the logical name, which cannot be told apart: it is kept.
     */
    private SQLException withoutShardLine(SQLException e) {
        if (!(e instanceof io.ashlar.backend.execute.BackendError error)) {
            return e;
        }
        String where = error.fields().field('W');
        java.util.regex.Matcher line = SHARD_LINE.matcher(where);
        if (!spread || !line.find() || line.group(2).equals(table)) {
            return e;
        }
        io.ashlar.backend.execute.BackendError result = new io.ashlar.backend.execute.BackendError(
                error.fields().withField('W', line.group(1) + where.substring(line.end())));
        result.initCause(e);
        return result;
    }

    private void release() {
        for (int node = 0; node < buffers.length; node++) {
            buffers[node] = EMPTY;
            lengths[node] = 0;
        }
    }

    private void checkActive() throws SQLException {
        if (!active) {
            throw CopyErrors.error("55000", "the sharded COPY of " + table + " has ended");
        }
    }

    // ------------------------------------------------------------------ start

    private static String unitSql(RewriteResult rewrite, ShardingTable rule, DataNode node) throws SQLException {
        for (RewrittenUnit each : rewrite.units()) {
            if (each.unit().dataSource().equals(node.dataSource()) && each.unit().actualTable(rule.logicTable()).equals(node.table())) {
                return each.sql();
            }
        }
        throw CopyErrors.error("XX000", "the COPY into " + rule.logicTable() + " was not routed to data node " + node);
    }

    static BackendConnection connection(CopyConnections connections, int dataSource) throws SQLException {
        try {
            return connections.connection(dataSource);
        } catch (StatementFailure failure) {
            throw CopyErrors.from(failure);
        }
    }

    static CopyStream.In start(BackendConnection connection, String sql) throws SQLException {
        CopyStream operation = connection.startCopy(sql);
        if (operation instanceof CopyStream.In result) {
            return result;
        }
        cancel(operation);
        throw CopyErrors.error("XX000", "the shard did not start COPY FROM STDIN for: " + sql);
    }

    static void cancel(CopyStream operation) {
        try {
            operation.cancelCopy();
        } catch (SQLException ignored) {
            // The shard answers a cancelled COPY with an error; the transaction is rolled back anyway.
        }
    }

    private static List<String> names(List<InsertColumn> columns) {
        List<String> result = new ArrayList<>(columns.size());
        for (InsertColumn each : columns) {
            result.add(each.name());
        }
        return result;
    }

    /**
     * The columns a COPY without a column list reads, in order: the actual table's columns, less dropped ones and, from
     * PostgreSQL 12, generated ones, read from the catalog of the first node's shard.
     */
    /** The actual table's columns as a COPY without a column list takes them: name and type OID. */
    private static List<String[]> tableColumns(BackendConnection connection, TableReference reference, String actualTable)
            throws SQLException {
        String sql = "SELECT a.attname, a.atttypid FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1::pg_catalog.regclass"
                + " AND a.attnum > 0 AND NOT a.attisdropped"
                + (majorVersion(connection.parameterStatuses().getOrDefault("server_version", "")) >= 12 ? " AND a.attgenerated = ''" : "")
                + " ORDER BY a.attnum";
        String name = reference.name().schema().map(schema -> SqlText.identifier(schema) + ".").orElse("") + SqlText.identifier(actualTable);
        BufferedResult result = new BufferedResult();
        java.nio.charset.Charset text = connection.textCharset(); // the session's client_encoding
        connection.execute(sql, ParameterValues.of(new int[] {0}, new short[0], new byte[][] {name.getBytes(text)}), result);
        if (result.error() != null) {
            throw result.error();
        }
        List<String[]> columns = new ArrayList<>(result.rowCount());
        for (int i = 0; i < result.rowCount(); i++) {
            columns.add(new String[] {new String(result.row(i).value(0), text), new String(result.row(i).value(1), text)});
        }
        return columns;
    }

    private static List<String> firsts(List<String[]> columns) {
        List<String> result = new ArrayList<>(columns.size());
        for (String[] each : columns) {
            result.add(each[0]);
        }
        return result;
    }

    /** A column's type OID; 0 (unknown: its values cannot be read) when the table has no such column. */
    private static int typeOf(List<String[]> columns, String column) {
        for (String[] each : columns) {
            if (each[0].equals(column)) {
                return Integer.parseInt(each[1]);
            }
        }
        return 0;
    }

    /** The major version of a {@code server_version} (openGauss reports 9.2.x), 0 when it does not start with one. */
    static int majorVersion(String serverVersion) {
        int result = 0;
        for (int i = 0; i < serverVersion.length() && Character.isDigit(serverVersion.charAt(i)) && result < 1000; i++) {
            result = result * 10 + serverVersion.charAt(i) - '0';
        }
        return result;
    }

}
