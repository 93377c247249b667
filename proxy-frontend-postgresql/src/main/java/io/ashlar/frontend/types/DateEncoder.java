package io.ashlar.frontend.types;

import io.ashlar.merge.value.DateTimeText;
import io.ashlar.merge.value.TypeOids;
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
        long days = DateTimeText.postgresDays(text, offset, offset + length, TYPE_NAME);
        out.writeInt(days == DateTimeText.INFINITY ? Integer.MAX_VALUE
                : days == DateTimeText.MINUS_INFINITY ? Integer.MIN_VALUE : (int) days);
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Integer.BYTES);
        write(text, offset, length, out);
    }
}
