package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The primitive encodings every message shares: a type byte and an Int32 length that counts
 * itself, NUL-terminated UTF-8 strings. Writers go straight into the caller's buffer with no
 * intermediate {@code byte[]}; the length is patched in after the body is written.
 */
final class Wire {

    static final byte[] EMPTY_BYTES = new byte[0];
    static final short[] EMPTY_SHORTS = new short[0];
    static final int[] EMPTY_INTS = new int[0];
    static final byte[][] EMPTY_VALUES = new byte[0][];

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Wire() {
    }

    /** Writes the type byte and a placeholder length; returns the index to pass to {@link #end}. */
    static int begin(ByteBuf out, byte type) {
        int result = out.writerIndex();
        out.writeByte(type);
        out.writeInt(0);
        return result;
    }

    /** Patches the length of the message begun at {@code start}. */
    static void end(ByteBuf out, int start) {
        out.setInt(start + 1, out.writerIndex() - start - 1);
    }

    /**
     * Writes a String in {@code charset}, then NUL: UTF-8 but where a relayed session's text is
     * carried byte for byte (ISO-8859-1, one char per byte, see {@link PgFrontendDecoder#textCharset}).
     */
    static void writeCString(ByteBuf out, String value, java.nio.charset.Charset charset) {
        if (value.isEmpty()) {
            out.writeByte(0); // the unnamed portal and statement of nearly every Bind, Describe and Execute
            return;
        }
        if (charset == StandardCharsets.UTF_8) {
            ByteBufUtil.writeUtf8(out, value);
        } else {
            out.writeCharSequence(value, charset);
        }
        out.writeByte(0);
    }

    /** Writes a String: UTF-8 bytes then NUL. PostgreSQL strings never contain NUL. */
    static void writeCString(ByteBuf out, String value) {
        if (value.isEmpty()) {
            out.writeByte(0);
            return;
        }
        ByteBufUtil.writeUtf8(out, value);
        out.writeByte(0);
    }

    /** The bytes of a message that never changes, for the pre-encoded singletons. */
    static byte[] fixed(char type, int... body) {
        byte[] result = new byte[5 + body.length];
        result[0] = (byte) type;
        int length = 4 + body.length;
        result[1] = (byte) (length >>> 24);
        result[2] = (byte) (length >>> 16);
        result[3] = (byte) (length >>> 8);
        result[4] = (byte) length;
        for (int i = 0; i < body.length; i++) {
            result[5 + i] = (byte) body[i];
        }
        return result;
    }

    /**
     * Reads a whole backend message's header for the test-side decoders: checks the type byte and
     * returns the body length, leaving the reader at the body.
     */
    static int readHeader(ByteBuf in, char type) {
        byte actual = in.readByte();
        if (actual != (byte) type) {
            throw new IllegalArgumentException("expected message type '" + type + "' but got " + (actual & 0xff));
        }
        int length = in.readInt();
        if (length < 4 || length - 4 > in.readableBytes()) {
            throw new IllegalArgumentException("invalid message length " + length);
        }
        return length - 4;
    }

    /** Reads a String for the test-side decoders. */
    static String readCString(ByteBuf in) {
        int nul = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
        if (nul < 0) {
            throw new IllegalArgumentException("invalid string in message");
        }
        String result = in.toString(in.readerIndex(), nul - in.readerIndex(), StandardCharsets.UTF_8);
        in.readerIndex(nul + 1);
        return result;
    }

    /** Checks that a test-side decoder consumed exactly the body. */
    static void expectEnd(ByteBuf in, int bodyEnd) {
        if (in.readerIndex() != bodyEnd) {
            throw new IllegalArgumentException("invalid message format");
        }
    }

    static byte[] readBytes(ByteBuf in, int length) {
        byte[] result = new byte[length];
        in.readBytes(result);
        return result;
    }

    static String hex(byte[] bytes) {
        char[] result = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            result[2 * i] = HEX[(bytes[i] >>> 4) & 0xf];
            result[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(result);
    }

    static boolean valuesEqual(byte[][] a, byte[][] b) {
        return Arrays.deepEquals(a, b);
    }

    static String describeValues(byte[][] values) {
        StringBuilder result = new StringBuilder().append('[');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                result.append(", ");
            }
            result.append(values[i] == null ? "NULL" : hex(values[i]));
        }
        return result.append(']').toString();
    }
}
