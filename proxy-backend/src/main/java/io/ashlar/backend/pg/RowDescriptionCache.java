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

    private final Described[] entries = new Described[SLOTS];
    /** What a decoded description becomes (its types renumbered for the logical database), or the identity. */
    private final java.util.function.UnaryOperator<ColumnDescription[]> decoded;
    /** The row patch of a description, from the type OID of each column sent in binary (0 for text); null for none. */
    private final java.util.function.UnaryOperator<int[]> rowPatch;

    public RowDescriptionCache() {
        this(java.util.function.UnaryOperator.identity(), types -> null);
    }

    /**
     * @param decoded what each description becomes once decoded (applied once per distinct description)
     * @param rowPatch what its rows' values need rewritten, from the type of each column the backend sends in binary
     *        (0 for a text one): null for nothing, else per column the type to rewrite by or 0 (once per description)
     */
    public RowDescriptionCache(java.util.function.UnaryOperator<ColumnDescription[]> decoded,
                               java.util.function.UnaryOperator<int[]> rowPatch) {
        this.decoded = decoded;
        this.rowPatch = rowPatch;
    }

    /**
     * A RowDescription decoded: its columns, and what its rows need rewritten (null for nothing). Final fields, so
     * that a thread that reads the reference sees it whole.
     */
    public static final class Described {
        private final byte[] frame;
        /** The charset its names were read in. */
        private final java.nio.charset.Charset text;
        private final ColumnDescription[] columns;
        private final int[] rowPatch;

        private Described(byte[] frame, java.nio.charset.Charset text, ColumnDescription[] columns, int[] rowPatch) {
            this.frame = frame;
            this.text = text;
            this.columns = columns;
            this.rowPatch = rowPatch;
        }

        public ColumnDescription[] columns() {
            return columns;
        }

        /** Per column, the type OID by which its binary values' inner type OIDs are rewritten, or 0; null for none. */
        public int[] rowPatch() {
            return rowPatch;
        }
    }

    /** The columns of the RowDescription frame of {@code length} bytes (type byte included) at {@code start}. */
    public ColumnDescription[] columns(ByteBuf in, int start, int length) {
        return describe(in, start, length).columns;
    }

    /** The RowDescription frame of {@code length} bytes (type byte included) at {@code start}, decoded. */
    public Described describe(ByteBuf in, int start, int length) {
        return describe(in, start, length, java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * As {@link #describe(ByteBuf, int, int)}, its names in {@code text} (the connection's client_encoding): a kept
     * description serves only the charset it was decoded in, since the same bytes name other columns in another.
     */
    public Described describe(ByteBuf in, int start, int length, java.nio.charset.Charset text) {
        if (length > MAX_FRAME) {
            return decode(null, in, start, text);
        }
        int slot = slot(in, start, length);
        Described known = entries[slot];
        if (known != null && known.frame.length == length && known.text == text && same(known.frame, in, start)) {
            return known;
        }
        Described result = decode(ByteBufUtil.getBytes(in, start, length), in, start, text);
        entries[slot] = result;
        return result;
    }

    private Described decode(byte[] frame, ByteBuf in, int start, java.nio.charset.Charset text) {
        return new Described(frame, text, decoded.apply(BackendFrames.columns(in, start, text)),
                rowPatch.apply(BackendFrames.binaryTypes(in, start)));
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
