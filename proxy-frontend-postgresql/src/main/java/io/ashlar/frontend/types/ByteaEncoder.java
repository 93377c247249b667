package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code bytea}: the binary form is the raw bytes. The text form is {@code \x} and two hex digits
 * per byte under {@code bytea_output = hex} (the default), or, under {@code escape}, printable
 * bytes as themselves, a backslash doubled and any other byte as a backslash and three octal
 * digits. See <a href="https://www.postgresql.org/docs/current/datatype-binary.html">Binary Data
 * Types</a>.
 */
final class ByteaEncoder implements ValueEncoder {

    static final ByteaEncoder INSTANCE = new ByteaEncoder();

    private static final String TYPE_NAME = "bytea";

    private ByteaEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.BYTEA;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        if (length >= 2 && text[offset] == '\\' && text[offset + 1] == 'x') {
            writeHex(text, offset, end, out);
        } else {
            writeEscaped(text, offset, end, out);
        }
    }

    private static void writeHex(byte[] text, int offset, int end, ByteBuf out) {
        if (((end - offset) & 1) != 0) {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
        out.ensureWritable((end - offset - 2) >> 1);
        for (int p = offset + 2; p < end; p += 2) {
            int high = AsciiText.hexDigit(text[p]);
            int low = AsciiText.hexDigit(text[p + 1]);
            if (high < 0 || low < 0) {
                throw AsciiText.malformed(TYPE_NAME, text, offset, end);
            }
            out.writeByte(high << 4 | low);
        }
    }

    private static void writeEscaped(byte[] text, int offset, int end, ByteBuf out) {
        int p = offset;
        while (p < end) {
            byte b = text[p];
            if (b != '\\') {
                out.writeByte(b);
                p++;
            } else if (p + 1 < end && text[p + 1] == '\\') {
                out.writeByte('\\');
                p += 2;
            } else if (p + 3 < end) {
                int d1 = octal(text[p + 1]);
                int d2 = octal(text[p + 2]);
                int d3 = octal(text[p + 3]);
                if (d1 < 0 || d1 > 3 || d2 < 0 || d3 < 0) {
                    throw AsciiText.malformed(TYPE_NAME, text, offset, end);
                }
                out.writeByte(d1 << 6 | d2 << 3 | d3);
                p += 4;
            } else {
                throw AsciiText.malformed(TYPE_NAME, text, offset, end);
            }
        }
    }

    private static int octal(byte b) {
        int result = b - '0';
        return result >= 0 && result <= 7 ? result : -1;
    }
}
