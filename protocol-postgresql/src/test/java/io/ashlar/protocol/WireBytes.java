package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Builds hand-written wire bytes field by field, so that each test can comment every field. */
final class WireBytes {

    private WireBytes() {
    }

    /** Raw bytes, each int taken as one byte (chars allowed: {@code 'Q'}). */
    static byte[] b(int... values) {
        byte[] result = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            result[i] = (byte) values[i];
        }
        return result;
    }

    static byte[] int16(int value) {
        return b(value >>> 8, value);
    }

    static byte[] int32(int value) {
        return b(value >>> 24, value >>> 16, value >>> 8, value);
    }

    /** A String: UTF-8 bytes and NUL. */
    static byte[] str(String value) {
        byte[] text = value.getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[text.length + 1];
        System.arraycopy(text, 0, result, 0, text.length);
        return result;
    }

    /** Bytes without NUL. */
    static byte[] ascii(String value) {
        return value.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream result = new ByteArrayOutputStream();
        for (byte[] each : parts) {
            result.writeBytes(each);
        }
        return result.toByteArray();
    }

    /** What a message's encode writes. */
    static byte[] encoded(FrontendMessage message) {
        ByteBuf out = Unpooled.buffer();
        message.encode(out);
        return ByteBufUtil.getBytes(out);
    }

    static byte[] encoded(BackendMessage message) {
        ByteBuf out = Unpooled.buffer();
        message.encode(out);
        return ByteBufUtil.getBytes(out);
    }
}
