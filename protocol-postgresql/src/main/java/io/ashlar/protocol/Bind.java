package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * Extended protocol: bind parameter values to a prepared statement, creating a portal. The
 * arrays are the decoder's own and are not copied; treat them as read-only.
 *
 * <p>Format codes follow PostgreSQL's rule: none means all text, one applies to every value,
 * otherwise one per value ({@link #parameterFormat(int)}, {@link #resultFormat(int)}). A count
 * that matches none of these is left for the session to reject as PostgreSQL does (08P01
 * ERROR "bind message has 2 parameter formats but 3 parameters").
 *
 * @param portal the destination portal, empty for the unnamed portal
 * @param statement the source prepared statement, empty for the unnamed statement
 * @param parameterFormats 0 text, 1 binary
 * @param parameterValues the values; a {@code null} entry is SQL NULL
 * @param resultFormats format codes for the result columns
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-BIND">Bind</a>
 */
public record Bind(String portal, String statement, short[] parameterFormats, byte[][] parameterValues,
                   short[] resultFormats) implements FrontendMessage {

    public static final byte TYPE = 'B';

    public Bind {
        Objects.requireNonNull(portal, "portal");
        Objects.requireNonNull(statement, "statement");
        Objects.requireNonNull(parameterFormats, "parameterFormats");
        Objects.requireNonNull(parameterValues, "parameterValues");
        Objects.requireNonNull(resultFormats, "resultFormats");
    }

    /** The format code of parameter {@code index}. */
    public short parameterFormat(int index) {
        return formatAt(parameterFormats, index);
    }

    /** The format code of result column {@code index}. */
    public short resultFormat(int index) {
        return formatAt(resultFormats, index);
    }

    static short formatAt(short[] formats, int index) {
        return switch (formats.length) {
            case 0 -> 0;
            case 1 -> formats[0];
            default -> index < formats.length ? formats[index] : 0;
        };
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        Wire.writeCString(out, portal, text);
        Wire.writeCString(out, statement, text);
        writeShorts(out, parameterFormats);
        out.writeShort(parameterValues.length);
        writeValues(out, parameterValues);
        writeShorts(out, resultFormats);
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

    static FrontendMessage decodeBody(FrameReader body) {
        String portal = body.readName();
        String statement = body.readName();
        short[] parameterFormats = body.readInt16Array(body.readCount16());
        byte[][] values = body.readValues(body.readCount16());
        short[] resultFormats = body.readInt16Array(body.readCount16());
        return body.finish(new Bind(portal, statement, parameterFormats, values, resultFormats));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Bind that && portal.equals(that.portal) && statement.equals(that.statement)
                && Arrays.equals(parameterFormats, that.parameterFormats)
                && Arrays.deepEquals(parameterValues, that.parameterValues)
                && Arrays.equals(resultFormats, that.resultFormats);
    }

    @Override
    public int hashCode() {
        int result = portal.hashCode();
        result = 31 * result + statement.hashCode();
        result = 31 * result + Arrays.hashCode(parameterFormats);
        result = 31 * result + Arrays.deepHashCode(parameterValues);
        return 31 * result + Arrays.hashCode(resultFormats);
    }

    @Override
    public String toString() {
        return "Bind[portal=" + portal + ", statement=" + statement + ", parameterFormats="
                + Arrays.toString(parameterFormats) + ", parameterValues=" + Wire.describeValues(parameterValues)
                + ", resultFormats=" + Arrays.toString(resultFormats) + "]";
    }
}
