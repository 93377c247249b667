package io.ashlar.backend.execute;

import io.ashlar.protocol.DataRow;

/**
 * A row kept as the body of the DataRow its backend sent, seen through {@link RowValues}: relayed
 * to the client in one copy ({@link DataRow.Frame}), split into values only when something reads
 * one (a scrollable cursor keeping the row). One instance is reused from row to row.
 */
public final class FrameRowView implements RowValues, DataRow.Frame {
    private byte[] body;
    private byte[][] values;

    /** Shows the DataRow body {@code body} (kept by reference) and returns this view. */
    public FrameRowView of(byte[] body) {
        this.body = body;
        this.values = null;
        return this;
    }

    @Override
    public byte[] frameBody() {
        return body;
    }

    @Override
    public int columnCount() {
        return ((body[0] & 0xff) << 8) | (body[1] & 0xff);
    }

    @Override
    public byte[] value(int column) {
        byte[][] result = values;
        if (result == null) {
            result = split(body);
            values = result;
        }
        return result[column];
    }

    /** The values of a DataRow body: each column's bytes, null for SQL NULL (length -1). */
    public static byte[][] split(byte[] body) {
        return io.ashlar.backend.pg.BackendFrames.rowBody(io.netty.buffer.Unpooled.wrappedBuffer(body), 0);
    }
}
