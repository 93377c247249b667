package io.ashlar.backend.pg;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Reads the backend messages the proxy itself must understand, from a frame in a buffer (type
 * byte, length, body): RowDescription, DataRow, CommandComplete, ErrorResponse and
 * NoticeResponse, ParameterDescription, NotificationResponse.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">Message Formats</a>
 */
public final class BackendFrames {

    private BackendFrames() {
    }

    /** RowDescription's fields. */
    public static ColumnDescription[] columns(ByteBuf in, int start) {
        return columns(in, start, StandardCharsets.UTF_8);
    }

    /** RowDescription's fields, the names in {@code text} (the connection's client_encoding). */
    public static ColumnDescription[] columns(ByteBuf in, int start, java.nio.charset.Charset text) {
        int at = start + 5;
        int count = in.getUnsignedShort(at);
        at += 2;
        ColumnDescription[] result = new ColumnDescription[count];
        for (int i = 0; i < count; i++) {
            int nameEnd = in.indexOf(at, in.writerIndex(), (byte) 0);
            String name = in.toString(at, nameEnd - at, text);
            at = nameEnd + 1;
            result[i] = new ColumnDescription(name, in.getInt(at), in.getShort(at + 4), in.getInt(at + 6),
                    in.getShort(at + 10), in.getInt(at + 12));
            at += 18;
        }
        return result;
    }

    /** The type OID of each column of a RowDescription whose values come in binary, 0 for each text one. */
    public static int[] binaryTypes(ByteBuf in, int start) {
        int at = start + 5;
        int count = in.getUnsignedShort(at);
        at += 2;
        int[] result = new int[count];
        for (int i = 0; i < count; i++) {
            at = in.indexOf(at, in.writerIndex(), (byte) 0) + 1;
            if (in.getShort(at + 16) == 1) {
                result[i] = in.getInt(at + 6);
            }
            at += 18;
        }
        return result;
    }

    /** ParameterDescription's type OIDs. */
    public static int[] parameterTypes(ByteBuf in, int start) {
        int count = in.getUnsignedShort(start + 5);
        int[] result = new int[count];
        for (int i = 0; i < count; i++) {
            result[i] = in.getInt(start + 7 + 4 * i);
        }
        return result;
    }

    /** CommandComplete's tag. */
    public static String tag(ByteBuf in, int start, int length) {
        return in.toString(start + 5, Math.max(0, length - 6), StandardCharsets.US_ASCII);
    }

    /** The fields of an ErrorResponse or NoticeResponse, in wire order. */
    public static ErrorFields errorFields(ByteBuf in, int start, int length) {
        return errorFields(in, start, length, StandardCharsets.UTF_8);
    }

    /** The fields of an ErrorResponse or NoticeResponse, in wire order, read in {@code text} (the connection's client_encoding). */
    public static ErrorFields errorFields(ByteBuf in, int start, int length, java.nio.charset.Charset text) {
        int end = start + length;
        int count = 0;
        for (int at = start + 5; at < end && in.getByte(at) != 0; ) {
            int stringEnd = in.indexOf(at + 1, end, (byte) 0);
            if (stringEnd < 0) {
                break;
            }
            count++;
            at = stringEnd + 1;
        }
        byte[] codes = new byte[count];
        String[] values = new String[count];
        int i = 0;
        for (int at = start + 5; i < count; i++) {
            int stringEnd = in.indexOf(at + 1, end, (byte) 0);
            codes[i] = in.getByte(at);
            values[i] = in.toString(at + 1, stringEnd - at - 1, text);
            at = stringEnd + 1;
        }
        return new ErrorFields(codes, values);
    }

    /** A DataRow's values, copied out of the buffer (a row outlives the read it came in). */
    public static byte[][] row(ByteBuf in, int start) {
        return rowBody(in, start + 5);
    }

    /** The values of a DataRow body (its column count and values, after the type byte and length) at {@code bodyStart}. */
    public static byte[][] rowBody(ByteBuf in, int bodyStart) {
        int count = in.getUnsignedShort(bodyStart);
        byte[][] result = new byte[count][];
        int at = bodyStart + 2;
        for (int i = 0; i < count; i++) {
            int length = in.getInt(at);
            at += 4;
            if (length >= 0) {
                byte[] value = new byte[length];
                in.getBytes(at, value);
                result[i] = value;
                at += length;
            }
        }
        return result;
    }
}
