package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * A bounds-checked cursor over the body of one complete frontend frame, in the manner of
 * PostgreSQL's {@code pqformat.c} ({@code pq_getmsgint}, {@code pq_getmsgstring},
 * {@code pq_getmsgend}). A read past the end does not throw: it records the reason (with
 * PostgreSQL's wording), returns zero or empty, and every later read does the same, so a message
 * decoder reads its fields straight through and asks {@link #finish} at the end. Nothing is
 * allocated for a count until the bytes it claims are known to be in the frame.
 *
 * <p>One instance is reused by a decoder for every frame; it is not shared between channels.
 */
final class FrameReader {

    static final String INSUFFICIENT_DATA = "insufficient data left in message";
    static final String INVALID_STRING = "invalid string in message";
    static final String INVALID_FORMAT = "invalid message format";

    private static final int NAME_CACHE_SLOTS = 16;
    private static final int NAME_CACHE_MAX_LENGTH = 64;
    /** A format code list of one text (0) or one binary (1) entry: shared, as the arrays are read-only. */
    private static final short[] ONE_TEXT = {0};
    private static final short[] ONE_BINARY = {1};

    private final byte[][] cachedBytes = new byte[NAME_CACHE_SLOTS][];
    private final String[] cachedNames = new String[NAME_CACHE_SLOTS];
    private java.nio.charset.Charset text = StandardCharsets.UTF_8;
    /** PostgreSQL's name of {@link #text}'s encoding, for the error of bytes that are not text in it. */
    private String encodingName = "UTF8";
    /**
     * Whether text that is not in {@link #text} is refused (22021) rather than read with replacement characters: once
     * a session that reads its text is told its encoding. Not in a startup packet, whose names PostgreSQL takes as
     * bytes (an application_name in the client's locale).
     */
    private boolean strict;
    private ByteBuf buf;
    private int position;
    private int end;
    private boolean failed;
    private String reason = "";
    private String sqlState = FrontendMessage.Malformed.PROTOCOL_VIOLATION;

    /** The charset strings are read in from now on (see {@link PgFrontendDecoder#textCharset}). */
    void text(java.nio.charset.Charset charset, String name) {
        encodingName = name;
        strict = true;
        if (charset != text) {
            text = charset;
            java.util.Arrays.fill(cachedBytes, null);
            java.util.Arrays.fill(cachedNames, null);
        }
    }

    void reset(ByteBuf buffer, int start, int limit) {
        buf = buffer;
        position = start;
        end = limit;
        failed = false;
        reason = "";
        sqlState = FrontendMessage.Malformed.PROTOCOL_VIOLATION;
    }

    boolean failed() {
        return failed;
    }

    int remaining() {
        return end - position;
    }

    void fail(String why) {
        fail(why, FrontendMessage.Malformed.PROTOCOL_VIOLATION);
    }

    private void fail(String why, String state) {
        if (!failed) {
            failed = true;
            reason = why;
            sqlState = state;
            position = end;
        }
    }

    /** True when {@code count} items of {@code size} bytes each fit in what is left; fails otherwise. */
    boolean fits(long count, int size) {
        if (count < 0 || count * size > end - position) {
            fail(INSUFFICIENT_DATA);
            return false;
        }
        return true;
    }

    byte readByte() {
        if (!fits(1, 1)) {
            return 0;
        }
        return buf.getByte(position++);
    }

    short readInt16() {
        if (!fits(1, 2)) {
            return 0;
        }
        short result = buf.getShort(position);
        position += 2;
        return result;
    }

    /** An Int16 count, read unsigned as PostgreSQL does (up to 65535 parameters). */
    int readCount16() {
        return readInt16() & 0xffff;
    }

    int readInt32() {
        if (!fits(1, 4)) {
            return 0;
        }
        int result = buf.getInt(position);
        position += 4;
        return result;
    }

    String readCString() {
        if (failed) {
            return "";
        }
        int nul = buf.indexOf(position, end, (byte) 0);
        if (nul < 0) {
            fail(INVALID_STRING);
            return "";
        }
        String result = nul == position ? "" : buf.toString(position, nul - position, text);
        if (strict && result.indexOf('\uFFFD') >= 0 && text != StandardCharsets.ISO_8859_1) {
            // What the charset could not read became U+FFFD (a compact Latin-1 String answers this at once): unless the
            // client sent U+FFFD itself, the text is refused as PostgreSQL refuses it, never passed on altered.
            String invalid = invalidSequence(position, nul);
            if (invalid != null) {
                fail(invalid, invalid.startsWith("character") ? "22P05" : "22021");
                return "";
            }
        }
        position = nul + 1;
        return result;
    }

    /**
     * A null-terminated statement or portal name: as {@link #readCString()}, but a name read
     * before comes back as the same String (clients repeat names in every Bind, Describe, Execute).
     */
    String readName() {
        if (failed) {
            return "";
        }
        int nul = buf.indexOf(position, end, (byte) 0);
        if (nul < 0) {
            fail(INVALID_STRING);
            return "";
        }
        String result = nul == position ? "" : name(nul - position);
        position = nul + 1;
        return result;
    }

    /**
     * A string of {@code length} bytes at the position. Short ones (statement and portal names,
     * which a client repeats in every Bind, Describe and Execute) come from a small cache of those
     * last read, compared byte for byte: no String is made for a name seen before.
     */
    private String name(int length) {
        if (length > NAME_CACHE_MAX_LENGTH) {
            return buf.toString(position, length, text);
        }
        int hash = length;
        for (int i = 0; i < length; i++) {
            hash = 31 * hash + buf.getByte(position + i);
        }
        int slot = (hash ^ (hash >>> 16)) & (NAME_CACHE_SLOTS - 1);
        byte[] known = cachedBytes[slot];
        if (known != null && known.length == length) {
            int i = 0;
            while (i < length && known[i] == buf.getByte(position + i)) {
                i++;
            }
            if (i == length) {
                return cachedNames[slot];
            }
        }
        byte[] bytes = new byte[length];
        buf.getBytes(position, bytes);
        String result = new String(bytes, text);
        cachedBytes[slot] = bytes;
        cachedNames[slot] = result;
        return result;
    }

    byte[] readBytes(int length) {
        if (!fits(length, 1)) {
            return Wire.EMPTY_BYTES;
        }
        if (length == 0) {
            return Wire.EMPTY_BYTES;
        }
        byte[] result = new byte[length];
        buf.getBytes(position, result);
        position += length;
        return result;
    }

    int position() {
        return position;
    }

    /** A copy of the frame's bytes {@code [from, to)} (positions already read past). */
    byte[] copy(int from, int to) {
        if (from == to) {
            return Wire.EMPTY_BYTES;
        }
        byte[] result = new byte[to - from];
        buf.getBytes(from, result);
        return result;
    }

    /** Moves past what {@link #readInt16Array} would read, checking it as that does. */
    void skipInt16Array(int count) {
        if (count != 0 && fits(count, 2)) {
            position += 2 * count;
        }
    }

    /** Moves past what {@link #readValues} would read, checking it as that does. */
    void skipValues(int count) {
        if (count == 0 || !fits(count, 4)) {
            return;
        }
        for (int i = 0; i < count && !failed; i++) {
            int length = readInt32();
            if (length == -1) {
                continue;
            }
            if (length < 0) {
                fail(INSUFFICIENT_DATA);
                break;
            }
            if (fits(length, 1)) {
                position += length;
            }
        }
    }

    void skipRemaining() {
        position = end;
    }

    /** The rest of the frame. */
    byte[] readRemaining() {
        return readBytes(end - position);
    }

    short[] readInt16Array(int count) {
        if (count == 0 || !fits(count, 2)) {
            return Wire.EMPTY_SHORTS;
        }
        if (count == 1) {
            short only = buf.getShort(position);
            if (only == 0 || only == 1) {
                position += 2;
                return only == 0 ? ONE_TEXT : ONE_BINARY;
            }
        }
        short[] result = new short[count];
        for (int i = 0; i < count; i++) {
            result[i] = buf.getShort(position);
            position += 2;
        }
        return result;
    }

    int[] readInt32Array(int count) {
        if (count == 0 || !fits(count, 4)) {
            return Wire.EMPTY_INTS;
        }
        int[] result = new int[count];
        for (int i = 0; i < count; i++) {
            result[i] = buf.getInt(position);
            position += 4;
        }
        return result;
    }

    /**
     * {@code count} values each written as Int32 length (-1 for NULL) then the bytes, as in Bind;
     * NULL becomes a {@code null} entry.
     */
    byte[][] readValues(int count) {
        if (count == 0 || !fits(count, 4)) {
            return Wire.EMPTY_VALUES;
        }
        byte[][] result = new byte[count][];
        for (int i = 0; i < count && !failed; i++) {
            int length = readInt32();
            if (length == -1) {
                continue;
            }
            if (length < 0) {
                fail(INSUFFICIENT_DATA);
                break;
            }
            result[i] = readBytes(length);
        }
        return result;
    }

    /**
     * PostgreSQL's error for the first byte sequence in {@code [from, to)} that is not text in the session's encoding,
     * or null when all of it is.
     */
    private String invalidSequence(int from, int to) {
        java.nio.ByteBuffer bytes = buf.nioBuffer(from, to - from);
        java.nio.charset.CoderResult result = text.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                .decode(bytes, java.nio.CharBuffer.allocate(to - from), true);
        if (!result.isError()) {
            return null;
        }
        int at = from + bytes.position();
        if (result.isUnmappable()) {
            // Valid in the encoding, but a character UTF-8 (the database's) has none for: PostgreSQL's conversion error.
            StringBuilder message = new StringBuilder("character with byte sequence");
            appendBytes(message, at, Math.max(1, result.length()), to);
            return message.append(" in encoding \"").append(encodingName).append("\" has no equivalent in encoding \"UTF8\"")
                    .toString();
        }
        StringBuilder message = new StringBuilder("invalid byte sequence for encoding \"").append(encodingName).append("\":");
        // As PostgreSQL's report_invalid_encoding: the bytes of the character the first byte starts, 8 at most.
        int shown = text == StandardCharsets.UTF_8 ? utf8Length(buf.getByte(at)) : Math.max(1, result.length());
        appendBytes(message, at, Math.min(shown, 8), to);
        return message.toString();
    }

    /** Appends up to {@code count} bytes from {@code at} (none at or past {@code to}) as PostgreSQL prints them: " 0xe9". */
    private void appendBytes(StringBuilder message, int at, int count, int to) {
        for (int i = 0; i < count && at + i < to; i++) {
            int b = buf.getByte(at + i) & 0xff;
            message.append(" 0x").append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xf, 16));
        }
    }

    /** PostgreSQL's {@code pg_utf_mblen}: the length of the UTF-8 character a lead byte starts. */
    private static int utf8Length(byte lead) {
        int b = lead & 0xff;
        return (b & 0x80) == 0 ? 1 : (b & 0xe0) == 0xc0 ? 2 : (b & 0xf0) == 0xe0 ? 3 : (b & 0xf8) == 0xf0 ? 4 : 1;
    }

    /**
     * The decoded message, or {@link FrontendMessage.Malformed} when a read failed or bytes are
     * left over (PostgreSQL's {@code pq_getmsgend}).
     */
    FrontendMessage finish(FrontendMessage message) {
        if (failed) {
            return new FrontendMessage.Malformed(reason, sqlState);
        }
        if (position != end) {
            return new FrontendMessage.Malformed(INVALID_FORMAT);
        }
        return message;
    }
}
