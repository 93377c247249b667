package io.ashlar.backend.pg;

import io.ashlar.backend.execute.ColumnDescription;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * The RowDescriptions one backend connection sent, decoded once. A prepared statement run again
 * answers the same RowDescription byte for byte, so a frame seen before is compared with the kept
 * copy instead of decoded (a name String and a record per column each time: most of what the
 * proxy decoded of a small statement's answer). The arrays handed out are shared and never
 * written to; their readers copy before changing a column (as they did already).
 *
 * <p>Direct-mapped: a frame's length and a few of its words choose a slot, which keeps the last
 * frame that chose it; a collision costs a decode, never a wrong answer, since a frame is used only
 * when every byte matches. Used by the thread that holds the connection, one at a time.
 */
public final class RowDescriptionCache {

    private static final int SLOTS = 64;
    /** Larger frames (hundreds of columns) are decoded each time rather than kept. */
    private static final int MAX_FRAME = 8192;

    private final byte[][] frames = new byte[SLOTS][];
    private final ColumnDescription[][] columns = new ColumnDescription[SLOTS][];

    /** The columns of the RowDescription frame of {@code length} bytes (type byte included) at {@code start}. */
    public ColumnDescription[] columns(ByteBuf in, int start, int length) {
        if (length > MAX_FRAME) {
            return BackendFrames.columns(in, start);
        }
        int slot = slot(in, start, length);
        byte[] known = frames[slot];
        if (known != null && known.length == length && same(known, in, start)) {
            return columns[slot];
        }
        ColumnDescription[] result = BackendFrames.columns(in, start);
        frames[slot] = ByteBufUtil.getBytes(in, start, length);
        columns[slot] = result;
        return result;
    }

    private static int slot(ByteBuf in, int start, int length) {
        int hash = length;
        if (length >= 16) {
            // The first column's name and the last column's type fields: statements differ there.
            hash = 31 * hash + Long.hashCode(in.getLong(start + 7));
            hash = 31 * hash + Long.hashCode(in.getLong(start + length - 8));
        }
        hash ^= hash >>> 16;
        return hash & (SLOTS - 1);
    }

    private static boolean same(byte[] known, ByteBuf in, int start) {
        int length = known.length;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if (in.getLong(start + i) != getLong(known, i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (in.getByte(start + i) != known[i]) {
                return false;
            }
        }
        return true;
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    private static long getLong(byte[] bytes, int at) {
        return (long) LONGS.get(bytes, at);
    }
}
