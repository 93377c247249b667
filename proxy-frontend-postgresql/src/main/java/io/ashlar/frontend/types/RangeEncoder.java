package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * The built-in range types: {@code range_send} writes a flags byte ({@code RANGE_EMPTY} 0x01,
 * {@code RANGE_LB_INC} 0x02, {@code RANGE_UB_INC} 0x04, {@code RANGE_LB_INF} 0x08,
 * {@code RANGE_UB_INF} 0x10), then each bound that is present as Int32 length and the element's
 * own binary form. {@code range_out} prints {@code empty}, or the lower bracket ({@code [}
 * inclusive, {@code (} exclusive), the lower bound, a comma, the upper bound and the upper bracket;
 * an infinite bound prints as nothing, so the text gives back exactly the flags PostgreSQL stored.
 * A bound is double-quoted when it is empty or holds a quote, backslash, bracket, parenthesis,
 * comma or white space ({@code ["2024-01-01 00:00:00","2024-02-01 00:00:00")}); a quote or
 * backslash in it is doubled, and {@code range_in}'s backslash escapes are read too.
 * {@code tstzrange} bounds carry the session time zone's offset as timestamptz output does. See
 * <a href="https://www.postgresql.org/docs/current/rangetypes.html#RANGETYPES-IO">Range
 * Input/Output</a> and {@code src/backend/utils/adt/rangetypes.c}.
 */
final class RangeEncoder implements ValueEncoder {

    static final RangeEncoder INT4RANGE = new RangeEncoder(TypeOids.INT4RANGE, IntegerEncoder.INT4, "int4range");
    static final RangeEncoder INT8RANGE = new RangeEncoder(TypeOids.INT8RANGE, IntegerEncoder.INT8, "int8range");
    static final RangeEncoder NUMRANGE = new RangeEncoder(TypeOids.NUMRANGE, NumericEncoder.INSTANCE, "numrange");
    static final RangeEncoder DATERANGE = new RangeEncoder(TypeOids.DATERANGE, DateEncoder.INSTANCE, "daterange");
    static final RangeEncoder TSRANGE =
            new RangeEncoder(TypeOids.TSRANGE, TimestampEncoder.WITHOUT_TIME_ZONE, "tsrange");
    static final RangeEncoder TSTZRANGE =
            new RangeEncoder(TypeOids.TSTZRANGE, TimestampEncoder.WITH_TIME_ZONE, "tstzrange");

    private static final int RANGE_EMPTY = 0x01;
    private static final int RANGE_LB_INC = 0x02;
    private static final int RANGE_UB_INC = 0x04;
    private static final int RANGE_LB_INF = 0x08;
    private static final int RANGE_UB_INF = 0x10;
    private static final String EMPTY_LITERAL = "empty";

    private final int typeOid;
    private final ValueEncoder element;
    private final String typeName;

    private RangeEncoder(int typeOid, ValueEncoder element, String typeName) {
        this.typeOid = typeOid;
        this.element = element;
        this.typeName = typeName;
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        if (writeRange(text, offset, end, out) != end) {
            throw AsciiText.malformed(typeName, text, offset, end);
        }
    }

    /**
     * Writes the binary form of the range whose text starts at {@code from} and returns the index
     * just after it, for a caller ({@link MultirangeEncoder}) that reads more after it.
     */
    int writeRange(byte[] text, int from, int end, ByteBuf out) {
        if (from < end && text[from] == 'e') {
            int result = from + EMPTY_LITERAL.length();
            if (result > end || !AsciiText.equalsAscii(text, from, result, EMPTY_LITERAL)) {
                throw AsciiText.malformed(typeName, text, from, end);
            }
            out.writeByte(RANGE_EMPTY);
            return result;
        }
        if (from >= end || text[from] != '[' && text[from] != '(') {
            throw AsciiText.malformed(typeName, text, from, end);
        }
        int flags = text[from] == '[' ? RANGE_LB_INC : 0;
        int flagsIndex = out.writerIndex();
        out.writeByte(0);
        int p = from + 1;
        if (p < end && text[p] == ',') {
            flags |= RANGE_LB_INF;
        } else {
            p = writeBound(text, p, end, from, out);
        }
        if (p >= end || text[p] != ',') {
            throw AsciiText.malformed(typeName, text, from, end);
        }
        p++;
        if (p < end && (text[p] == ')' || text[p] == ']')) {
            flags |= RANGE_UB_INF;
        } else {
            p = writeBound(text, p, end, from, out);
        }
        if (p >= end || text[p] != ')' && text[p] != ']') {
            throw AsciiText.malformed(typeName, text, from, end);
        }
        if (text[p] == ']') {
            flags |= RANGE_UB_INC;
        }
        out.setByte(flagsIndex, flags);
        return p + 1;
    }

    /**
     * Writes the bound starting at {@code from}, as {@code range_parse_bound} reads it, with its
     * length; returns the index of the comma or bracket that ends it. Only a bound with escapes
     * is copied.
     */
    private int writeBound(byte[] text, int from, int end, int rangeFrom, ByteBuf out) {
        boolean inQuote = false;
        boolean escaped = false;
        int quotes = 0;
        int p = from;
        while (p < end && (inQuote || text[p] != ',' && text[p] != ')' && text[p] != ']')) {
            byte b = text[p];
            if (b == '\\') {
                escaped = true;
                p++;
            } else if (b == '"') {
                if (inQuote && p + 1 < end && text[p + 1] == '"') {
                    escaped = true;
                    p++;
                } else {
                    inQuote = !inQuote;
                    quotes++;
                }
            }
            p++;
        }
        if (inQuote || p > end) {
            throw AsciiText.malformed(typeName, text, rangeFrom, end);
        }
        if (quotes == 0 && !escaped) {
            element.writeWithLength(text, from, p - from, out);
        } else if (quotes == 2 && !escaped && text[from] == '"' && text[p - 1] == '"') {
            element.writeWithLength(text, from + 1, p - from - 2, out);
        } else {
            byte[] unescaped = new byte[p - from];
            element.writeWithLength(unescaped, 0, unescape(text, from, p, unescaped), out);
        }
        return p;
    }

    /** {@code range_parse_bound}'s unquoting: quotes dropped, {@code \x} and {@code ""} kept as one byte. */
    private static int unescape(byte[] text, int from, int to, byte[] target) {
        boolean inQuote = false;
        int result = 0;
        for (int p = from; p < to; p++) {
            byte b = text[p];
            if (b == '\\') {
                target[result++] = text[++p];
            } else if (b == '"') {
                if (inQuote && p + 1 < to && text[p + 1] == '"') {
                    target[result++] = text[++p];
                } else {
                    inQuote = !inQuote;
                }
            } else {
                target[result++] = b;
            }
        }
        return result;
    }
}
