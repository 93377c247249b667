package io.ashlar.frontend.types;

import io.netty.buffer.ByteBuf;

/**
 * {@code date}: {@code date_send} writes Int32 days since 2000-01-01; {@code infinity} and
 * {@code -infinity} are {@code DATEVAL_NOEND} (Int32 max) and {@code DATEVAL_NOBEGIN} (Int32
 * min). The text is DateStyle ISO: {@code 2024-01-31}, {@code 0044-03-15 BC}. See
 * <a href="https://www.postgresql.org/docs/current/datatype-datetime.html">Date/Time Types</a>.
 */
final class DateEncoder implements ValueEncoder {

    static final DateEncoder INSTANCE = new DateEncoder();

    private static final String TYPE_NAME = "date";

    private DateEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.DATE;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        if (length > 0 && (text[offset] == 'i' || text[offset] == '-')) {
            out.writeInt(infinity(text, offset, end));
            return;
        }
        boolean bc = DateTimeText.endsWithBc(text, offset, end);
        long days = DateTimeText.parseDate(text, offset, DateTimeText.endWithoutBc(text, offset, end), bc, TYPE_NAME);
        out.writeInt((int) days);
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Integer.BYTES);
        write(text, offset, length, out);
    }

    private static int infinity(byte[] text, int offset, int end) {
        if (AsciiText.equalsAscii(text, offset, end, "infinity")) {
            return Integer.MAX_VALUE;
        }
        if (AsciiText.equalsAscii(text, offset, end, "-infinity")) {
            return Integer.MIN_VALUE;
        }
        throw AsciiText.malformed(TYPE_NAME, text, offset, end);
    }
}
