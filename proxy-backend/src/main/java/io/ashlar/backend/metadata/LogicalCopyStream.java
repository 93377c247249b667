package io.ashlar.backend.metadata;

import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.ErrorFields;
import java.sql.SQLException;

/**
 * A COPY whose errors name logical tables: a backend's {@code CONTEXT: COPY t_order_1, line 3} reaches the client
 * as {@code COPY t_order, line 3}. The data passes through untouched.
 */
abstract class LogicalCopyStream implements CopyStream {

    private final CopyStream stream;
    private final LogicalSchema schema;

    private LogicalCopyStream(CopyStream stream, LogicalSchema schema) {
        this.stream = stream;
        this.schema = schema;
    }

    /** {@code stream} with its errors in logical names; itself when no table has another logical name. */
    static CopyStream of(CopyStream stream, LogicalSchema schema) {
        if (!schema.renamesTables()) {
            return stream;
        }
        return switch (stream) {
            case CopyStream.In in -> new In(in, schema);
            case CopyStream.Out out -> new Out(out, schema);
            default -> stream;
        };
    }

    SQLException logical(SQLException e) {
        if (!(e instanceof BackendError backend)) {
            return e;
        }
        ErrorFields fields = schema.logical(backend.fields());
        if (fields == backend.fields()) {
            return e;
        }
        BackendError result = new BackendError(fields);
        result.initCause(e);
        return result;
    }

    @Override
    public int getFormat() {
        return stream.getFormat();
    }

    @Override
    public int getFieldCount() {
        return stream.getFieldCount();
    }

    @Override
    public int getFieldFormat(int field) {
        return stream.getFieldFormat(field);
    }

    @Override
    public void cancelCopy() throws SQLException {
        try {
            stream.cancelCopy();
        } catch (SQLException e) {
            throw logical(e);
        }
    }

    @Override
    public long getHandledRowCount() {
        return stream.getHandledRowCount();
    }

    private static final class In extends LogicalCopyStream implements CopyStream.In {
        private final CopyStream.In in;

        In(CopyStream.In in, LogicalSchema schema) {
            super(in, schema);
            this.in = in;
        }

        @Override
        public void writeToCopy(byte[] buf, int off, int len) throws SQLException {
            try {
                in.writeToCopy(buf, off, len);
            } catch (SQLException e) {
                throw logical(e);
            }
        }

        @Override
        public long endCopy() throws SQLException {
            try {
                return in.endCopy();
            } catch (SQLException e) {
                throw logical(e);
            }
        }
    }

    private static final class Out extends LogicalCopyStream implements CopyStream.Out {
        private final CopyStream.Out out;

        Out(CopyStream.Out out, LogicalSchema schema) {
            super(out, schema);
            this.out = out;
        }

        @Override
        public byte[] readFromCopy() throws SQLException {
            try {
                return out.readFromCopy();
            } catch (SQLException e) {
                throw logical(e);
            }
        }
    }
}
