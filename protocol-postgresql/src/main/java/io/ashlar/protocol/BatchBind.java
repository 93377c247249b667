package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * openGauss's batch bind ({@code 'U'}): one frame carrying N rows of parameters for one prepared
 * statement plus an embedded Execute, sent by the openGauss JDBC driver for
 * {@code executeBatch()} ({@code QueryExecutorImpl.sendBatchBind}). The whole batch becomes one
 * JDBC batch per data source. Layout:
 * <pre>
 * Byte1 'U', Int32 length,
 * Int32 N (rows), String portal, String statement,
 * Int16 count + Int16[] parameter formats, Int16 count + Int16[] result formats,
 * Int16 parameters per row,
 * N x parameters-per-row x (Int32 length or -1 for NULL, bytes),
 * Byte1 'E', String portal, Int32 max rows        (no length: part of the same frame)
 * </pre>
 * Arrays are the decoder's own, not copied; treat them as read-only.
 *
 * @param portal the portal to bind (the driver sends the unnamed one)
 * @param statement the prepared statement
 * @param parameterFormats as in {@link Bind}
 * @param resultFormats as in {@link Bind}
 * @param parametersPerRow values in each row
 * @param rows the rows; a {@code null} value is SQL NULL
 * @param executePortal the embedded Execute's portal
 * @param maxRows the embedded Execute's row limit (0)
 * @see <a href="https://gitee.com/opengauss/openGauss-connector-jdbc">openGauss JDBC driver</a>,
 *     {@code org.opengauss.core.v3.QueryExecutorImpl.sendBatchBind}
 */
public record BatchBind(String portal, String statement, short[] parameterFormats, short[] resultFormats,
                        int parametersPerRow, List<byte[][]> rows, String executePortal, int maxRows)
        implements FrontendMessage {

    public static final byte TYPE = 'U';

    public BatchBind {
        Objects.requireNonNull(portal, "portal");
        Objects.requireNonNull(statement, "statement");
        Objects.requireNonNull(parameterFormats, "parameterFormats");
        Objects.requireNonNull(resultFormats, "resultFormats");
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(executePortal, "executePortal");
    }

    /** The format code of parameter {@code index} of each row. */
    public short parameterFormat(int index) {
        return Bind.formatAt(parameterFormats, index);
    }

    @Override
    public void encode(ByteBuf out) {
        int start = Wire.begin(out, TYPE);
        out.writeInt(rows.size());
        Wire.writeCString(out, portal);
        Wire.writeCString(out, statement);
        Bind.writeShorts(out, parameterFormats);
        Bind.writeShorts(out, resultFormats);
        out.writeShort(parametersPerRow);
        for (int i = 0; i < rows.size(); i++) {
            Bind.writeValues(out, rows.get(i));
        }
        out.writeByte(Execute.TYPE);
        Wire.writeCString(out, executePortal);
        out.writeInt(maxRows);
        Wire.end(out, start);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        int rowCount = body.readInt32();
        if (rowCount < 0) {
            return new Malformed("invalid batch bind row count " + rowCount);
        }
        String portal = body.readCString();
        String statement = body.readCString();
        short[] parameterFormats = body.readInt16Array(body.readCount16());
        short[] resultFormats = body.readInt16Array(body.readCount16());
        int perRow = body.readCount16();
        List<byte[][]> rows;
        if (perRow == 0) {
            rows = Collections.nCopies(rowCount, Wire.EMPTY_VALUES);
        } else if (body.fits((long) rowCount * perRow, 4)) {
            List<byte[][]> read = new ArrayList<>(rowCount);
            for (int i = 0; i < rowCount && !body.failed(); i++) {
                read.add(body.readValues(perRow));
            }
            rows = Collections.unmodifiableList(read);
        } else {
            rows = List.of();
        }
        byte execute = body.readByte();
        if (!body.failed() && execute != Execute.TYPE) {
            return new Malformed("invalid batch bind: expected Execute but found message type " + (execute & 0xff));
        }
        String executePortal = body.readCString();
        int maxRows = body.readInt32();
        return body.finish(new BatchBind(portal, statement, parameterFormats, resultFormats, perRow, rows,
                executePortal, maxRows));
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof BatchBind that) || parametersPerRow != that.parametersPerRow
                || maxRows != that.maxRows || rows.size() != that.rows.size() || !portal.equals(that.portal)
                || !statement.equals(that.statement) || !executePortal.equals(that.executePortal)
                || !Arrays.equals(parameterFormats, that.parameterFormats)
                || !Arrays.equals(resultFormats, that.resultFormats)) {
            return false;
        }
        for (int i = 0; i < rows.size(); i++) {
            if (!Arrays.deepEquals(rows.get(i), that.rows.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int result = Objects.hash(portal, statement, executePortal, parametersPerRow, maxRows, rows.size());
        result = 31 * result + Arrays.hashCode(parameterFormats);
        return 31 * result + Arrays.hashCode(resultFormats);
    }

    @Override
    public String toString() {
        StringBuilder result = new StringBuilder("BatchBind[portal=").append(portal).append(", statement=")
                .append(statement).append(", parameterFormats=").append(Arrays.toString(parameterFormats))
                .append(", resultFormats=").append(Arrays.toString(resultFormats)).append(", parametersPerRow=")
                .append(parametersPerRow).append(", rows=[");
        for (int i = 0; i < rows.size(); i++) {
            result.append(i == 0 ? "" : ", ").append(Wire.describeValues(rows.get(i)));
        }
        return result.append("], executePortal=").append(executePortal).append(", maxRows=").append(maxRows)
                .append(']').toString();
    }
}
