package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.StatementFailure;
import java.io.ByteArrayOutputStream;
import java.sql.SQLException;
import java.util.List;

/**
 * {@code COPY ... TO STDOUT (FORMAT binary)} of what spans several shards and needs no merge (a whole table, or a
 * query whose rows are the units' rows one after another): each unit's own binary COPY runs in turn, and their data is
 * written as one file: the first unit's header, every unit's tuples unchanged, one trailer. PostgreSQL's binary values
 * reach the client exactly as the shards wrote them, whatever their types.
 *
 * <p>One session thread drives an instance; nothing here is shared.
 */
public final class ConcatenatedCopyOut implements CopyStream.Out {

    /** One unit: its data source and its COPY statement. */
    public record Unit(int dataSource, String sql) {
    }

    private static final byte[] TRAILER = {(byte) 0xFF, (byte) 0xFF};

    private final List<Unit> units;
    private final CopyConnections connections;
    private final CopyStream.Out first;
    private CopyStream.Out current;
    private int next = 1;
    private BinaryCopyRows reader;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream(8192);
    private boolean headerWritten;
    private boolean done;
    private long rows;

    private ConcatenatedCopyOut(List<Unit> units, CopyConnections connections, CopyStream.Out first) {
        this.units = units;
        this.connections = connections;
        this.first = first;
        this.current = first;
        this.reader = reader();
    }

    /** Whether a COPY asks for binary format (options it cannot parse are reported by the COPY that runs). */
    public static boolean binary(String sql, io.ashlar.parser.statement.CopyStatement copy) {
        try {
            return CopyOptions.parse(sql, copy, "UTF8").format() == CopyOptions.Format.BINARY;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Starts the first unit's COPY (whose CopyOutResponse the client gets); the others start as the data goes on. */
    public static ConcatenatedCopyOut open(List<Unit> units, CopyConnections connections) throws SQLException {
        return new ConcatenatedCopyOut(List.copyOf(units), connections, start(units.get(0), connections));
    }

    private static CopyStream.Out start(Unit unit, CopyConnections connections) throws SQLException {
        BackendConnection connection;
        try {
            connection = connections.connection(unit.dataSource());
        } catch (StatementFailure failure) {
            throw CopyErrors.from(failure);
        }
        CopyStream operation = connection.startCopy(unit.sql());
        if (operation instanceof CopyStream.Out result && result.getFormat() == 1) {
            return result;
        }
        ShardedCopyIn.cancel(operation);
        throw CopyErrors.error("XX000", "the shard did not start a binary COPY TO STDOUT for: " + unit.sql());
    }

    /** Reads one unit's data: its header (kept from the first unit only) and its tuples, its trailer dropped. */
    private BinaryCopyRows reader() {
        return new BinaryCopyRows(new int[0], new int[0], new BinaryCopyRows.Tuples() {
            @Override
            public void header(byte[] buffer, int start, int end) {
                if (!headerWritten) {
                    headerWritten = true;
                    pending.write(buffer, start, end - start);
                }
            }

            @Override
            public void tuple(byte[] buffer, int start, int end, Object[] values, long tuple) {
                pending.write(buffer, start, end - start);
                rows++;
            }
        });
    }

    @Override
    public byte[] readFromCopy() throws SQLException {
        while (!done) {
            byte[] data = current.readFromCopy();
            if (data != null) {
                reader.feed(data, 0, data.length);
            } else {
                reader.finish();
                if (next < units.size()) {
                    current = start(units.get(next++), connections);
                    reader = reader();
                } else {
                    done = true;
                    pending.write(TRAILER, 0, TRAILER.length);
                }
            }
            if (pending.size() > 0) {
                byte[] result = pending.toByteArray();
                pending.reset();
                return result;
            }
        }
        return null;
    }

    @Override
    public int getFormat() {
        return 1;
    }

    @Override
    public int getFieldCount() {
        return first.getFieldCount();
    }

    @Override
    public int getFieldFormat(int field) {
        return first.getFieldFormat(field);
    }

    @Override
    public void cancelCopy() throws SQLException {
        done = true;
        current.cancelCopy();
    }

    @Override
    public long getHandledRowCount() {
        return rows;
    }
}
