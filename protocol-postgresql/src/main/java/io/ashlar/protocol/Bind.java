package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Extended protocol: bind parameter values to a prepared statement, creating a portal. The
 * arrays are the decoder's own and are not copied; treat them as read-only.
 *
 * <p>Format codes follow PostgreSQL's rule: none means all text, one applies to every value,
 * otherwise one per value ({@link #parameterFormat(int)}, {@link #resultFormat(int)}). A parameter
 * format count that matches none of these is a malformed Bind (08P01 ERROR "bind message has 2
 * parameter formats but 3 parameters"), which PostgreSQL reports once it has found the statement
 * and before it counts the statement's parameters. The codes themselves (0 text, 1 binary, anything else 22023) are the
 * session's to check, as PostgreSQL checks them when it reads each value.
 *
 * <p>A decoded Bind keeps what follows its two names (format codes, values, result formats) as
 * the client sent it, checked but not taken apart: a relay that passes the message on, renaming
 * at most its statement, writes those bytes back in one copy and never makes the arrays, which
 * are read from them only when asked for (one session thread asks; not for sharing between threads).
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-BIND">Bind</a>
 */
public final class Bind implements FrontendMessage {

    public static final byte TYPE = 'B';

    private final String portal;
    private final String statement;
    /** Format codes, values and result formats as the client sent them; null when built from the arrays. */
    private final byte[] tail;
    private short[] parameterFormats;
    private byte[][] parameterValues;
    private short[] resultFormats;

    /**
     * @param portal the destination portal, empty for the unnamed portal
     * @param statement the source prepared statement, empty for the unnamed statement
     * @param parameterFormats 0 text, 1 binary
     * @param parameterValues the values; a {@code null} entry is SQL NULL
     * @param resultFormats format codes for the result columns
     */
    public Bind(String portal, String statement, short[] parameterFormats, byte[][] parameterValues, short[] resultFormats) {
        this.portal = Objects.requireNonNull(portal, "portal");
        this.statement = Objects.requireNonNull(statement, "statement");
        this.parameterFormats = Objects.requireNonNull(parameterFormats, "parameterFormats");
        this.parameterValues = Objects.requireNonNull(parameterValues, "parameterValues");
        this.resultFormats = Objects.requireNonNull(resultFormats, "resultFormats");
        this.tail = null;
    }

    private Bind(String portal, String statement, byte[] tail) {
        this.portal = portal;
        this.statement = statement;
        this.tail = tail;
    }

    public String portal() {
        return portal;
    }

    public String statement() {
        return statement;
    }

    public short[] parameterFormats() {
        unpack();
        return parameterFormats;
    }

    public byte[][] parameterValues() {
        unpack();
        return parameterValues;
    }

    public short[] resultFormats() {
        unpack();
        return resultFormats;
    }

    /** The format code of parameter {@code index}. */
    public short parameterFormat(int index) {
        return formatAt(parameterFormats(), index);
    }

    /** The format code of result column {@code index}. */
    public short resultFormat(int index) {
        return formatAt(resultFormats(), index);
    }

    static short formatAt(short[] formats, int index) {
        return switch (formats.length) {
            case 0 -> 0;
            case 1 -> formats[0];
            default -> index < formats.length ? formats[index] : 0;
        };
    }

    /** Reads the arrays out of the bytes the decoder kept (checked by it already). */
    private void unpack() {
        if (parameterFormats != null) {
            return;
        }
        byte[] in = tail;
        int at = 0;
        int formatCount = u16(in, at);
        short[] formats = shorts(in, at + 2, formatCount);
        at += 2 + 2 * formatCount;
        byte[][] values = new byte[u16(in, at)][];
        at += 2;
        for (int i = 0; i < values.length; i++) {
            int length = u16(in, at) << 16 | u16(in, at + 2);
            at += 4;
            if (length >= 0) {
                values[i] = java.util.Arrays.copyOfRange(in, at, at + length);
                at += length;
            }
        }
        resultFormats = shorts(in, at + 2, u16(in, at));
        parameterValues = values.length == 0 ? Wire.EMPTY_VALUES : values;
        parameterFormats = formats;
    }

    /** The unsigned 16-bit number at {@code at} (network order); read by index, no ByteBuffer made per Bind. */
    private static int u16(byte[] in, int at) {
        return (in[at] & 0xff) << 8 | in[at + 1] & 0xff;
    }

    private static short[] shorts(byte[] in, int at, int count) {
        if (count == 0) {
            return Wire.EMPTY_SHORTS;
        }
        short[] result = new short[count];
        for (int i = 0; i < count; i++) {
            result[i] = (short) u16(in, at + 2 * i);
        }
        return result;
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, Charset text) {
        encode(out, text, statement);
    }

    /** Writes the message naming another statement (a relay's own name for the client's statement). */
    public void encode(ByteBuf out, Charset text, String statementName) {
        int start = Wire.begin(out, TYPE);
        Wire.writeCString(out, portal, text);
        Wire.writeCString(out, statementName, text);
        if (tail != null) {
            out.writeBytes(tail);
        } else {
            writeShorts(out, parameterFormats);
            out.writeShort(parameterValues.length);
            writeValues(out, parameterValues);
            writeShorts(out, resultFormats);
        }
        Wire.end(out, start);
    }

    static void writeShorts(ByteBuf out, short[] values) {
        out.writeShort(values.length);
        for (short each : values) {
            out.writeShort(each);
        }
    }

    static void writeValues(ByteBuf out, byte[][] values) {
        for (byte[] each : values) {
            if (each == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(each.length);
                out.writeBytes(each);
            }
        }
    }

    /**
     * The statement a malformed Bind's frame (type byte, length, body, as the client sent it)
     * names, or null when its portal and statement names do not read.
     */
    public static String statementOf(byte[] frame, Charset text) {
        int portalEnd = nul(frame, 5);
        int statementEnd = portalEnd < 0 ? -1 : nul(frame, portalEnd + 1);
        return statementEnd < 0 ? null : new String(frame, portalEnd + 1, statementEnd - portalEnd - 1, text);
    }

    /**
     * How many values a malformed Bind's frame says it has, or -1 when what comes before that count
     * (the names, the parameter format codes) does not read: PostgreSQL checks the count, and the
     * transaction's state, before it reads the values.
     */
    public static int valueCountOf(byte[] frame) {
        int portalEnd = nul(frame, 5);
        int statementEnd = portalEnd < 0 ? -1 : nul(frame, portalEnd + 1);
        if (statementEnd < 0 || statementEnd + 3 > frame.length) {
            return -1;
        }
        int formats = ((frame[statementEnd + 1] & 0xff) << 8) | (frame[statementEnd + 2] & 0xff);
        int countAt = statementEnd + 3 + 2 * formats;
        return countAt + 2 > frame.length ? -1 : ((frame[countAt] & 0xff) << 8) | (frame[countAt + 1] & 0xff);
    }

    /**
     * The first format code other than 0 and 1 that a malformed Bind's frame gives to a value that
     * reads whole, or -1 when none: PostgreSQL reads each value, then refuses its format code (22023),
     * before it finds what is wrong further on (a value cut short, bytes after the result formats).
     */
    public static int unsupportedFormatOf(byte[] frame) {
        int count = valueCountOf(frame);
        if (count < 0) {
            return -1;
        }
        int statementEnd = nul(frame, nul(frame, 5) + 1);
        int formats = int16(frame, statementEnd + 1);
        int at = statementEnd + 3 + 2 * formats + 2;
        for (int i = 0; i < count; i++) {
            if (at + 4 > frame.length) {
                return -1;
            }
            int length = ((frame[at] & 0xff) << 24) | ((frame[at + 1] & 0xff) << 16) | ((frame[at + 2] & 0xff) << 8)
                    | (frame[at + 3] & 0xff);
            at += 4 + Math.max(0, length);
            if (length < -1 || at > frame.length) {
                return -1;
            }
            int format = formats == 0 ? 0 : (short) int16(frame, statementEnd + 3 + 2 * (formats == 1 ? 0 : i));
            if (format != 0 && format != 1) {
                return format & 0xffff;
            }
        }
        return -1;
    }

    private static int int16(byte[] frame, int at) {
        return ((frame[at] & 0xff) << 8) | (frame[at + 1] & 0xff);
    }

    /**
     * A malformed Bind's frame naming {@code statementName} instead (a relay's own name for the
     * client's statement), the rest as the client sent it; null when its names do not read.
     */
    public static byte[] renamedFrame(byte[] frame, String statementName, Charset text) {
        int portalEnd = nul(frame, 5);
        int statementEnd = portalEnd < 0 ? -1 : nul(frame, portalEnd + 1);
        if (statementEnd < 0) {
            return null;
        }
        byte[] name = statementName.getBytes(text);
        byte[] result = new byte[portalEnd + 1 + name.length + frame.length - statementEnd];
        System.arraycopy(frame, 0, result, 0, portalEnd + 1);
        System.arraycopy(name, 0, result, portalEnd + 1, name.length);
        System.arraycopy(frame, statementEnd, result, portalEnd + 1 + name.length, frame.length - statementEnd);
        ByteBuffer.wrap(result).putInt(1, result.length - 1);
        return result;
    }

    private static int nul(byte[] frame, int from) {
        for (int i = from; i < frame.length; i++) {
            if (frame[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    static FrontendMessage decodeBody(FrameReader body) {
        String portal = body.readName();
        String statement = body.readName();
        int tailStart = body.position();
        int formats = body.readCount16();
        body.skipInt16Array(formats);
        int values = body.readCount16();
        if (!body.failed() && formats > 1 && formats != values) {
            // PostgreSQL's exec_bind_message checks this after it finds the statement, before the values.
            return new Malformed("bind message has " + formats + " parameter formats but " + values + " parameters");
        }
        body.skipValues(values);
        body.skipInt16Array(body.readCount16());
        if (body.failed()) {
            return body.finish(null);
        }
        byte[] tail = body.copy(tailStart, body.position());
        return body.finish(new Bind(portal, statement, tail));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Bind that && portal.equals(that.portal) && statement.equals(that.statement)
                && Arrays.equals(parameterFormats(), that.parameterFormats())
                && Arrays.deepEquals(parameterValues(), that.parameterValues())
                && Arrays.equals(resultFormats(), that.resultFormats());
    }

    @Override
    public int hashCode() {
        int result = portal.hashCode();
        result = 31 * result + statement.hashCode();
        result = 31 * result + Arrays.hashCode(parameterFormats());
        result = 31 * result + Arrays.deepHashCode(parameterValues());
        return 31 * result + Arrays.hashCode(resultFormats());
    }

    @Override
    public String toString() {
        return "Bind[portal=" + portal + ", statement=" + statement + ", parameterFormats="
                + Arrays.toString(parameterFormats()) + ", parameterValues=" + Wire.describeValues(parameterValues())
                + ", resultFormats=" + Arrays.toString(resultFormats()) + "]";
    }
}
