package io.ashlar.backend.pg;

import io.ashlar.backend.execute.ColumnDescription;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * The RowDescriptions the connections of one data source sent, decoded once. A prepared statement run again
 * answers the same RowDescription byte for byte, on whichever connection, so a frame seen before is compared with
 * the kept copy instead of decoded (a name String and a record per column each time: most of what the proxy decoded
 * of a small statement's answer). The arrays handed out are shared and never written to; their readers copy before
 * changing a column (as they did already). One array per distinct description also lets a session's later steps
 * recognise a description by identity ({@code LogicalSession}).
 *
 * <p>Direct-mapped: a frame's length and a few of its words choose a slot, which keeps the last frame that chose
 * it; a collision costs a decode, never a wrong answer, since a frame is used only when every byte matches. The
 * decoding depends on the bytes alone. Used by the sessions of every event loop: a slot holds an immutable entry,
 * published by a plain write (its final fields make it whole to any thread that reads it); two threads that miss
 * at once both decode, and one entry stays.
 */
public final class RowDescriptionCache {

    /** Many more than a workload's distinct descriptions, so that two in use seldom take turns in one slot. */
    private static final int SLOTS = 1024;
    /** Larger frames (hundreds of columns) are decoded each time rather than kept. */
    private static final int MAX_FRAME = 8192;

    private final Entry[] entries = new Entry[SLOTS];
    /** What a decoded description becomes (its types renumbered for the logical database), or the identity. */
    private final java.util.function.UnaryOperator<ColumnDescription[]> decoded;

    public RowDescriptionCache() {
        this(java.util.function.UnaryOperator.identity());
    }

    /** @param decoded what each description becomes once decoded (applied once per distinct description) */
    public RowDescriptionCache(java.util.function.UnaryOperator<ColumnDescription[]> decoded) {
        this.decoded = decoded;
    }

    /** A frame and its columns; final fields, so that a thread that reads the reference sees both whole. */
    private record Entry(byte[] frame, ColumnDescription[] columns) {
    }

    /** The columns of the RowDescription frame of {@code length} bytes (type byte included) at {@code start}. */
    public ColumnDescription[] columns(ByteBuf in, int start, int length) {
        if (length > MAX_FRAME) {
            return decoded.apply(BackendFrames.columns(in, start));
        }
        int slot = slot(in, start, length);
        Entry known = entries[slot];
        if (known != null && known.frame.length == length && same(known.frame, in, start)) {
            return known.columns;
        }
        ColumnDescription[] result = decoded.apply(BackendFrames.columns(in, start));
        entries[slot] = new Entry(ByteBufUtil.getBytes(in, start, length), result);
        return result;
    }

    private static int slot(ByteBuf in, int start, int length) {
        int hash = length;
        if (length >= 16) {
            // The first column's name, a word from the middle and the last column's type fields.
            hash = 31 * hash + Long.hashCode(in.getLong(start + 7));
            hash = 31 * hash + Long.hashCode(in.getLong(start + (length >>> 1)));
            hash = 31 * hash + Long.hashCode(in.getLong(start + length - 8));
        }
        hash *= 0x9E3779B9;
        hash ^= hash >>> 16;
        return hash & (SLOTS - 1);
    }

    private static boolean same(byte[] known, ByteBuf in, int start) {
        int length = known.length;
        if (in.hasArray()) {
            // A heap buffer (what a backend's answers are read into): one vectorised compare, no index check per word.
            int from = in.arrayOffset() + start;
            return java.util.Arrays.equals(known, 0, length, in.array(), from, from + length);
        }
        for (int i = 0; i < length; i++) {
            if (in.getByte(start + i) != known[i]) {
                return false;
            }
        }
        return true;
    }
}
