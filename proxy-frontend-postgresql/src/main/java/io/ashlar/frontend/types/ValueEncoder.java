package io.ashlar.frontend.types;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Converts one column's values from PostgreSQL's text output format to its binary send format,
 * byte for byte what the type's {@code typsend} function would have produced. Ashlar reads every
 * backend value as text; a client that asks for a binary result column in its Bind message gets
 * it through one of these, chosen once per column by {@link BinaryEncoders#find(int)} so that no
 * lookup happens per row. See
 * <a href="https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-FORMAT-CODES">
 * Formats and Format Codes</a>.
 *
 * <p>Instances are stateless and thread-safe. The input is the text exactly as the backend sent it
 * (DateStyle ISO, IntervalStyle postgres, {@code extra_float_digits} &gt;= 1, bytea_output hex or
 * escape); SQL NULL never reaches an encoder (the caller writes length -1 itself). Text that the
 * backend could not have produced raises {@link IllegalArgumentException}; the output buffer may
 * then hold part of the value, so a caller that goes on using it resets its writer index.
 */
public sealed interface ValueEncoder extends io.ashlar.protocol.DataRow.ValueWriter
        permits ArrayEncoder, BoolEncoder, ByteaEncoder, DateEncoder, Float4Encoder, Float8Encoder,
        IntegerEncoder, IntervalEncoder, JsonbEncoder, NumericEncoder, SameBytesEncoder, TimeEncoder,
        TimestampEncoder, UuidEncoder, GeometryEncoder, TimetzEncoder, CharEncoder, InetEncoder, MacaddrEncoder,
        RangeEncoder, MultirangeEncoder, CompositeEncoder {

    /** The OID of the type this encoder converts, as sent in RowDescription. */
    int typeOid();

    /**
     * Appends the binary form of {@code text[offset, offset + length)} to {@code out}, without a
     * length prefix.
     */
    void write(byte[] text, int offset, int length, ByteBuf out);

    /**
     * Appends an Int32 byte count followed by the binary form: one column value of a DataRow
     * message, or one element of a binary array.
     */
    @Override
    default void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        write(text, offset, length, out);
        out.setInt(lengthIndex, out.writerIndex() - lengthIndex - Integer.BYTES);
    }

    /** The binary form of the whole of {@code text}, for callers that hold no output buffer. */
    default byte[] toBinary(byte[] text) {
        return toBinary(text, 0, text.length);
    }

    /** The binary form of {@code text[offset, offset + length)} as a new array. */
    default byte[] toBinary(byte[] text, int offset, int length) {
        ByteBuf buffer = Unpooled.buffer(length + 16);
        write(text, offset, length, buffer);
        byte[] result = new byte[buffer.readableBytes()];
        buffer.readBytes(result);
        return result;
    }
}
