package io.ashlar.merge.value;

/**
 * How the merge engine reads, orders and compares a column's text values, by PostgreSQL type.
 *
 * <p>Each kind reproduces the type's btree ordering
 * (<a href="https://www.postgresql.org/docs/current/functions-comparison.html">Comparison
 * Operators</a>) from the text the backend prints with {@code DateStyle = ISO} and
 * {@code IntervalStyle = postgres} (the defaults). {@link #BYTES} is plain unsigned byte
 * order, which is PostgreSQL's own order only for the types {@link #hasExactOrdering(int)}
 * accepts.
 */
public enum ValueKind {
    /** int2, int4, int8, oid, xid: parsed to a long. */
    INTEGER,
    /** float4, float8: NaN above everything, {@code -0 = 0}. */
    FLOAT,
    /** bool: false before true (the text bytes {@code f} and {@code t} already sort so). */
    BOOL,
    /** numeric: by value ({@code 1.0 = 1.00}), NaN above everything. */
    NUMERIC,
    /** date, with BC dates and {@code infinity}. */
    DATE,
    /** time without time zone. */
    TIME,
    /** time with time zone: by UTC time, then by zone. */
    TIMETZ,
    /** timestamp without time zone, with BC and {@code infinity}. */
    TIMESTAMP,
    /** timestamp with time zone: by the UTC instant. */
    TIMESTAMPTZ,
    /** interval: by its span with a month as 30 days ({@code 1 mon = 30 days}), as PostgreSQL does. */
    INTERVAL,
    /** text, varchar, name: by the column's collation. */
    TEXT,
    /** character(n): trailing spaces ignored, then by collation. */
    BPCHAR,
    /** anything else: unsigned bytes. */
    BYTES;

    /** The kind of a type OID; unknown types are {@link #BYTES}. */
    public static ValueKind of(int typeOid) {
        return switch (typeOid) {
            case TypeOids.INT2, TypeOids.INT4, TypeOids.INT8, TypeOids.OID, TypeOids.XID -> INTEGER;
            case TypeOids.FLOAT4, TypeOids.FLOAT8 -> FLOAT;
            case TypeOids.BOOL -> BOOL;
            case TypeOids.NUMERIC -> NUMERIC;
            case TypeOids.DATE -> DATE;
            case TypeOids.TIME -> TIME;
            case TypeOids.TIMETZ -> TIMETZ;
            case TypeOids.TIMESTAMP -> TIMESTAMP;
            case TypeOids.TIMESTAMPTZ -> TIMESTAMPTZ;
            case TypeOids.INTERVAL -> INTERVAL;
            case TypeOids.TEXT, TypeOids.VARCHAR, TypeOids.NAME -> TEXT;
            case TypeOids.BPCHAR -> BPCHAR;
            default -> BYTES;
        };
    }

    /**
     * Whether the merge engine orders (and tests equality of) this type exactly as PostgreSQL
     * does. The planner should not merge-sort, group or take MIN/MAX across shards over a type
     * for which this is false (json, jsonb, money, arrays, ranges, network types, ...).
     */
    public static boolean hasExactOrdering(int typeOid) {
        return of(typeOid) != BYTES
                || typeOid == TypeOids.UUID || typeOid == TypeOids.BYTEA || typeOid == TypeOids.CHAR;
    }

    /** Whether values of this kind are decoded into two long slots for fast comparison. */
    public boolean decodes() {
        return switch (this) {
            case NUMERIC, TEXT, BPCHAR, BYTES, BOOL -> false;
            default -> true;
        };
    }

    /** Whether this is a number kind (mutually comparable in HAVING). */
    public boolean numeric() {
        return this == INTEGER || this == FLOAT || this == NUMERIC;
    }
}
