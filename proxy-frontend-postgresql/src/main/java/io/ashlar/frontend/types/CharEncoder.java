package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code "char"}, the one-byte type of the catalogs ({@code pg_type.typtype},
 * {@code pg_class.relkind}): {@code charsend} writes the byte itself. {@code charout} prints the
 * byte as it is and nothing for the zero byte; from PostgreSQL 15 it prints a byte with the high
 * bit set as a backslash and three octal digits ({@code \377}), where 14 and earlier printed the
 * raw byte, so both forms are read. asyncpg's type introspection asks for this type in binary.
 * See <a href="https://www.postgresql.org/docs/current/datatype-character.html#DATATYPE-CHARACTER-SPECIAL-TABLE">
 * Special Character Types</a> and {@code src/backend/utils/adt/char.c}.
 */
final class CharEncoder implements ValueEncoder {

    static final CharEncoder INSTANCE = new CharEncoder();

    private static final String TYPE_NAME = "\"char\"";
    private static final int OCTAL_LENGTH = 4;

    private CharEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.CHAR;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        switch (length) {
            case 0 -> out.writeByte(0);
            case 1 -> out.writeByte(text[offset]);
            case OCTAL_LENGTH -> out.writeByte(octal(text, offset));
            default -> throw AsciiText.malformed(TYPE_NAME, text, offset, offset + length);
        }
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(1);
        write(text, offset, length, out);
    }

    /** The byte of {@code \ooo}, which {@code charout} writes only for bytes 0x80 to 0xFF. */
    private static int octal(byte[] text, int offset) {
        int high = text[offset + 1] - '0';
        int middle = text[offset + 2] - '0';
        int low = text[offset + 3] - '0';
        if (text[offset] != '\\' || high < 2 || high > 3 || middle < 0 || middle > 7 || low < 0 || low > 7) {
            throw AsciiText.malformed(TYPE_NAME, text, offset, offset + OCTAL_LENGTH);
        }
        return high << 6 | middle << 3 | low;
    }
}
