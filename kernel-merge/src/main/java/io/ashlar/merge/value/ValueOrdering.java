package io.ashlar.merge.value;

import io.ashlar.merge.plan.TextCollation;

import java.util.Arrays;
import java.util.Objects;

/**
 * PostgreSQL's ordering and equality for the non-NULL text values of one column type, as a
 * {@link ValueKind} defines them, with the column's {@link TextCollation} for text.
 *
 * <p>Two ways to compare: {@link #compare(byte[], byte[])} reads both values each time;
 * {@link #decode} reads a value once into two long slots, which {@link #compareDecoded} then
 * compares without touching the bytes (kinds whose {@link ValueKind#decodes()} is false compare
 * their bytes directly and never need decoding). Immutable; safe to share.
 */
public final class ValueOrdering {

    private final int typeOid;
    private final ValueKind kind;
    private final TextCollation collation;

    private ValueOrdering(int typeOid, ValueKind kind, TextCollation collation) {
        this.typeOid = typeOid;
        this.kind = kind;
        this.collation = collation;
    }

    /** The ordering of a column type, text compared by {@code collation}. */
    public static ValueOrdering of(int typeOid, TextCollation collation) {
        return new ValueOrdering(typeOid, ValueKind.of(typeOid), Objects.requireNonNull(collation, "collation"));
    }

    /** The ordering of a column type, text compared as in the C collation. */
    public static ValueOrdering of(int typeOid) {
        return of(typeOid, TextCollation.C);
    }

    public int typeOid() {
        return typeOid;
    }

    public ValueKind kind() {
        return kind;
    }

    /** Whether {@link #decode} applies (otherwise compare the bytes). */
    public boolean decodes() {
        return kind.decodes();
    }

    /** Reads a non-NULL value into {@code slots[offset]} and {@code slots[offset + 1]}. */
    public void decode(byte[] value, long[] slots, int offset) {
        switch (kind) {
            case TIMETZ -> DateTimeText.parseTimeTz(value, slots, offset);
            case INTERVAL -> IntervalText.parseSpan(value, slots, offset);
            default -> {
                slots[offset] = decodeLong(value);
                slots[offset + 1] = 0;
            }
        }
    }

    /** Compares two decoded values. */
    public int compareDecoded(long[] a, int aOffset, long[] b, int bOffset) {
        int result = Long.compare(a[aOffset], b[bOffset]);
        if (result != 0) {
            return result;
        }
        return kind == ValueKind.INTERVAL
                ? Long.compareUnsigned(a[aOffset + 1], b[bOffset + 1])
                : Long.compare(a[aOffset + 1], b[bOffset + 1]);
    }

    /** Three-way comparison of two non-NULL values. */
    public int compare(byte[] a, byte[] b) {
        return switch (kind) {
            case INTEGER, FLOAT, DATE, TIME, TIMESTAMP, TIMESTAMPTZ -> Long.compare(decodeLong(a), decodeLong(b));
            case TIMETZ, INTERVAL -> {
                long[] slots = new long[4];
                decode(a, slots, 0);
                decode(b, slots, 2);
                yield compareDecoded(slots, 0, slots, 2);
            }
            case NUMERIC -> NumericText.compare(a, b);
            case TEXT -> collation.compare(a, a.length, b, b.length);
            case BPCHAR -> collation.compare(a, trimmedLength(a), b, trimmedLength(b));
            case BOOL, BYTES -> Arrays.compareUnsigned(a, b);
        };
    }

    /** Whether two non-NULL values are equal for GROUP BY and DISTINCT. */
    public boolean equal(byte[] a, byte[] b) {
        return Arrays.equals(a, b) || (kind != ValueKind.TEXT && kind != ValueKind.BYTES && compare(a, b) == 0);
    }

    /**
     * The single-slot decoded value: integers as such, floats as {@link FloatText#sortableBits},
     * dates in days and times and timestamps in microseconds.
     */
    long decodeLong(byte[] value) {
        return switch (kind) {
            case INTEGER -> IntegerText.parse(value);
            case FLOAT -> FloatText.sortableBits(FloatText.parse(value));
            case DATE -> DateTimeText.parseDate(value);
            case TIME -> DateTimeText.parseTime(value);
            case TIMESTAMP -> DateTimeText.parseTimestamp(value);
            case TIMESTAMPTZ -> DateTimeText.parseTimestampTz(value);
            default -> throw new IllegalStateException(kind + " does not decode to one long");
        };
    }

    /** Length of a {@code character(n)} value without its trailing spaces. */
    static int trimmedLength(byte[] value) {
        int length = value.length;
        while (length > 0 && value[length - 1] == ' ') {
            length--;
        }
        return length;
    }

    /** Appends the canonical form of a non-NULL value: equal values, equal bytes. */
    void appendCanonical(byte[] value, GroupKeyEncoder encoder) {
        switch (kind) {
            case INTEGER, FLOAT, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, TIMETZ, INTERVAL -> {
                long[] slots = encoder.slots();
                decode(value, slots, 0);
                encoder.appendLong(slots[0]);
                encoder.appendLong(slots[1]);
            }
            case NUMERIC -> {
                int start = NumericText.canonicalStart(value);
                encoder.appendBytes(value, start, NumericText.canonicalEnd(value));
            }
            case BPCHAR -> encoder.appendBytes(value, 0, trimmedLength(value));
            case TEXT, BOOL, BYTES -> encoder.appendBytes(value, 0, value.length);
        }
    }

    @Override
    public String toString() {
        return kind + "(" + typeOid + ")";
    }
}
