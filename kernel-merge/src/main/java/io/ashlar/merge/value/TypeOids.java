package io.ashlar.merge.value;

/**
 * The built-in type OIDs Ashlar knows by name: those the merge engine reads and those whose binary
 * send format the frontend produces, as fixed in PostgreSQL's {@code pg_type.dat} (they never change
 * between releases). See
 * <a href="https://www.postgresql.org/docs/current/datatype-oid.html">Object Identifier Types</a>.
 */
public final class TypeOids {

    public static final int BOOL = 16;
    public static final int BYTEA = 17;
    /** {@code "char"}, the single-byte type of the catalogs. */
    public static final int CHAR = 18;
    public static final int NAME = 19;
    public static final int INT8 = 20;
    public static final int INT2 = 21;
    public static final int INT4 = 23;
    public static final int TEXT = 25;
    public static final int OID = 26;
    public static final int XID = 28;
    public static final int JSON = 114;
    public static final int XML = 142;
    /** {@code point}. */
    public static final int POINT = 600;
    /** {@code box}. */
    public static final int BOX = 603;
    /** {@code cidr}. */
    public static final int CIDR = 650;
    public static final int FLOAT4 = 700;
    public static final int FLOAT8 = 701;
    /** {@code macaddr8}. */
    public static final int MACADDR8 = 774;
    public static final int MONEY = 790;
    /** {@code macaddr}. */
    public static final int MACADDR = 829;
    /** {@code inet}. */
    public static final int INET = 869;
    public static final int BPCHAR = 1042;
    public static final int VARCHAR = 1043;
    public static final int DATE = 1082;
    public static final int TIME = 1083;
    public static final int TIMESTAMP = 1114;
    public static final int TIMESTAMPTZ = 1184;
    public static final int INTERVAL = 1186;
    /** {@code time with time zone}. */
    public static final int TIMETZ = 1266;
    public static final int NUMERIC = 1700;
    /** The result of a function that returns nothing (pg_sleep, pg_advisory_xact_lock, pg_notify). */
    public static final int VOID = 2278;
    public static final int UUID = 2950;
    public static final int JSONB = 3802;
    /** {@code int4range}. */
    public static final int INT4RANGE = 3904;
    /** {@code numrange}. */
    public static final int NUMRANGE = 3906;
    /** {@code tsrange}. */
    public static final int TSRANGE = 3908;
    /** {@code tstzrange}. */
    public static final int TSTZRANGE = 3910;
    /** {@code daterange}. */
    public static final int DATERANGE = 3912;
    /** {@code int8range}. */
    public static final int INT8RANGE = 3926;
    /** {@code int4multirange} (PostgreSQL 14). */
    public static final int INT4MULTIRANGE = 4451;
    /** {@code nummultirange}. */
    public static final int NUMMULTIRANGE = 4532;
    /** {@code tsmultirange}. */
    public static final int TSMULTIRANGE = 4533;
    /** {@code tstzmultirange}. */
    public static final int TSTZMULTIRANGE = 4534;
    /** {@code datemultirange}. */
    public static final int DATEMULTIRANGE = 4535;
    /** {@code int8multirange}. */
    public static final int INT8MULTIRANGE = 4536;

    public static final int JSON_ARRAY = 199;
    /** {@code cidr[]}. */
    public static final int CIDR_ARRAY = 651;
    /** {@code macaddr8[]}. */
    public static final int MACADDR8_ARRAY = 775;
    public static final int BOOL_ARRAY = 1000;
    public static final int BYTEA_ARRAY = 1001;
    /** {@code "char"[]}. */
    public static final int CHAR_ARRAY = 1002;
    public static final int NAME_ARRAY = 1003;
    public static final int INT2_ARRAY = 1005;
    public static final int INT4_ARRAY = 1007;
    public static final int TEXT_ARRAY = 1009;
    public static final int BPCHAR_ARRAY = 1014;
    public static final int VARCHAR_ARRAY = 1015;
    public static final int INT8_ARRAY = 1016;
    /** {@code point[]}. */
    public static final int POINT_ARRAY = 1017;
    public static final int FLOAT4_ARRAY = 1021;
    public static final int FLOAT8_ARRAY = 1022;
    public static final int OID_ARRAY = 1028;
    /** {@code macaddr[]}. */
    public static final int MACADDR_ARRAY = 1040;
    /** {@code inet[]}. */
    public static final int INET_ARRAY = 1041;
    public static final int TIMESTAMP_ARRAY = 1115;
    public static final int DATE_ARRAY = 1182;
    public static final int TIME_ARRAY = 1183;
    public static final int TIMESTAMPTZ_ARRAY = 1185;
    public static final int INTERVAL_ARRAY = 1187;
    public static final int NUMERIC_ARRAY = 1231;
    /** {@code timetz[]}. */
    public static final int TIMETZ_ARRAY = 1270;
    public static final int UUID_ARRAY = 2951;
    public static final int JSONB_ARRAY = 3807;
    /** {@code int4range[]}. */
    public static final int INT4RANGE_ARRAY = 3905;
    /** {@code numrange[]}. */
    public static final int NUMRANGE_ARRAY = 3907;
    /** {@code tsrange[]}. */
    public static final int TSRANGE_ARRAY = 3909;
    /** {@code tstzrange[]}. */
    public static final int TSTZRANGE_ARRAY = 3911;
    /** {@code daterange[]}. */
    public static final int DATERANGE_ARRAY = 3913;
    /** {@code int8range[]}. */
    public static final int INT8RANGE_ARRAY = 3927;
    /** {@code int4multirange[]}. */
    public static final int INT4MULTIRANGE_ARRAY = 6150;
    /** {@code nummultirange[]}. */
    public static final int NUMMULTIRANGE_ARRAY = 6151;
    /** {@code tsmultirange[]}. */
    public static final int TSMULTIRANGE_ARRAY = 6152;
    /** {@code tstzmultirange[]}. */
    public static final int TSTZMULTIRANGE_ARRAY = 6153;
    /** {@code datemultirange[]}. */
    public static final int DATEMULTIRANGE_ARRAY = 6155;
    /** {@code int8multirange[]}. */
    public static final int INT8MULTIRANGE_ARRAY = 6157;

    private TypeOids() {
    }

    /**
     * Whether PostgreSQL prints values of this built-in type by DateStyle: dates, timestamps and timestamps with time
     * zone, and the arrays, ranges and multiranges of them (time and timetz print alike in every style).
     */
    public static boolean printedByDateStyle(int typeOid) {
        return switch (typeOid) {
            case DATE, TIMESTAMP, TIMESTAMPTZ, DATE_ARRAY, TIMESTAMP_ARRAY, TIMESTAMPTZ_ARRAY, DATERANGE, TSRANGE, TSTZRANGE,
                 DATERANGE_ARRAY, TSRANGE_ARRAY, TSTZRANGE_ARRAY, DATEMULTIRANGE, TSMULTIRANGE, TSTZMULTIRANGE,
                 DATEMULTIRANGE_ARRAY, TSMULTIRANGE_ARRAY, TSTZMULTIRANGE_ARRAY -> true;
            default -> false;
        };
    }
}
