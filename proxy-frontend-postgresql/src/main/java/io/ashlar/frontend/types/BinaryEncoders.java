package io.ashlar.frontend.types;

import io.ashlar.merge.value.TypeOids;
import java.util.Optional;

/**
 * Finds the text-to-binary {@link ValueEncoder} for a result column's type OID. Ashlar's backend
 * connections fetch every value as text; when a client's Bind message asks for a column in binary
 * (format code 1), the frontend looks the column's encoder up here once, when the RowDescription
 * is known, and then converts each row's value with no further lookup. A type that is not listed
 * here cannot be sent in binary: the caller answers with an ErrorResponse of SQLSTATE
 * {@link #UNSUPPORTED_SQLSTATE} and {@link #unsupportedMessage(int)}. See
 * <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">Bind</a> (result
 * column format codes).
 */
public final class BinaryEncoders {

    /** feature_not_supported, for a binary result column of a type with no encoder. */
    public static final String UNSUPPORTED_SQLSTATE = "0A000";

    private static final ValueEncoder BOOL_ARRAY = new ArrayEncoder(TypeOids.BOOL_ARRAY, BoolEncoder.INSTANCE);
    private static final ValueEncoder BYTEA_ARRAY = new ArrayEncoder(TypeOids.BYTEA_ARRAY, ByteaEncoder.INSTANCE);
    private static final ValueEncoder NAME_ARRAY = new ArrayEncoder(TypeOids.NAME_ARRAY, SameBytesEncoder.NAME);
    private static final ValueEncoder INT2_ARRAY = new ArrayEncoder(TypeOids.INT2_ARRAY, IntegerEncoder.INT2);
    private static final ValueEncoder INT4_ARRAY = new ArrayEncoder(TypeOids.INT4_ARRAY, IntegerEncoder.INT4);
    private static final ValueEncoder INT8_ARRAY = new ArrayEncoder(TypeOids.INT8_ARRAY, IntegerEncoder.INT8);
    private static final ValueEncoder TEXT_ARRAY = new ArrayEncoder(TypeOids.TEXT_ARRAY, SameBytesEncoder.TEXT);
    private static final ValueEncoder OID_ARRAY = new ArrayEncoder(TypeOids.OID_ARRAY, IntegerEncoder.OID);
    private static final ValueEncoder JSON_ARRAY = new ArrayEncoder(TypeOids.JSON_ARRAY, SameBytesEncoder.JSON);
    private static final ValueEncoder FLOAT4_ARRAY = new ArrayEncoder(TypeOids.FLOAT4_ARRAY, Float4Encoder.INSTANCE);
    private static final ValueEncoder FLOAT8_ARRAY = new ArrayEncoder(TypeOids.FLOAT8_ARRAY, Float8Encoder.INSTANCE);
    private static final ValueEncoder BPCHAR_ARRAY = new ArrayEncoder(TypeOids.BPCHAR_ARRAY, SameBytesEncoder.BPCHAR);
    private static final ValueEncoder VARCHAR_ARRAY =
            new ArrayEncoder(TypeOids.VARCHAR_ARRAY, SameBytesEncoder.VARCHAR);
    private static final ValueEncoder DATE_ARRAY = new ArrayEncoder(TypeOids.DATE_ARRAY, DateEncoder.INSTANCE);
    private static final ValueEncoder TIME_ARRAY = new ArrayEncoder(TypeOids.TIME_ARRAY, TimeEncoder.INSTANCE);
    private static final ValueEncoder TIMESTAMP_ARRAY =
            new ArrayEncoder(TypeOids.TIMESTAMP_ARRAY, TimestampEncoder.WITHOUT_TIME_ZONE);
    private static final ValueEncoder TIMESTAMPTZ_ARRAY =
            new ArrayEncoder(TypeOids.TIMESTAMPTZ_ARRAY, TimestampEncoder.WITH_TIME_ZONE);
    private static final ValueEncoder INTERVAL_ARRAY =
            new ArrayEncoder(TypeOids.INTERVAL_ARRAY, IntervalEncoder.INSTANCE);
    private static final ValueEncoder NUMERIC_ARRAY = new ArrayEncoder(TypeOids.NUMERIC_ARRAY, NumericEncoder.INSTANCE);
    private static final ValueEncoder UUID_ARRAY = new ArrayEncoder(TypeOids.UUID_ARRAY, UuidEncoder.INSTANCE);
    private static final ValueEncoder JSONB_ARRAY = new ArrayEncoder(TypeOids.JSONB_ARRAY, JsonbEncoder.INSTANCE);

    private static final ValueEncoder POINT_ARRAY = new ArrayEncoder(TypeOids.POINT_ARRAY, GeometryEncoder.POINT);
    private static final ValueEncoder TIMETZ_ARRAY = new ArrayEncoder(TypeOids.TIMETZ_ARRAY, TimetzEncoder.INSTANCE);

    private static final ValueEncoder CHAR_ARRAY = new ArrayEncoder(TypeOids.CHAR_ARRAY, CharEncoder.INSTANCE);
    private static final ValueEncoder INET_ARRAY = new ArrayEncoder(TypeOids.INET_ARRAY, InetEncoder.INET);
    private static final ValueEncoder CIDR_ARRAY = new ArrayEncoder(TypeOids.CIDR_ARRAY, InetEncoder.CIDR);
    private static final ValueEncoder MACADDR_ARRAY = new ArrayEncoder(TypeOids.MACADDR_ARRAY, MacaddrEncoder.MACADDR);
    private static final ValueEncoder MACADDR8_ARRAY =
            new ArrayEncoder(TypeOids.MACADDR8_ARRAY, MacaddrEncoder.MACADDR8);
    private static final ValueEncoder INT4RANGE_ARRAY =
            new ArrayEncoder(TypeOids.INT4RANGE_ARRAY, RangeEncoder.INT4RANGE);
    private static final ValueEncoder INT8RANGE_ARRAY =
            new ArrayEncoder(TypeOids.INT8RANGE_ARRAY, RangeEncoder.INT8RANGE);
    private static final ValueEncoder NUMRANGE_ARRAY = new ArrayEncoder(TypeOids.NUMRANGE_ARRAY, RangeEncoder.NUMRANGE);
    private static final ValueEncoder DATERANGE_ARRAY =
            new ArrayEncoder(TypeOids.DATERANGE_ARRAY, RangeEncoder.DATERANGE);
    private static final ValueEncoder TSRANGE_ARRAY = new ArrayEncoder(TypeOids.TSRANGE_ARRAY, RangeEncoder.TSRANGE);
    private static final ValueEncoder TSTZRANGE_ARRAY =
            new ArrayEncoder(TypeOids.TSTZRANGE_ARRAY, RangeEncoder.TSTZRANGE);
    private static final ValueEncoder INT4MULTIRANGE_ARRAY =
            new ArrayEncoder(TypeOids.INT4MULTIRANGE_ARRAY, MultirangeEncoder.INT4MULTIRANGE);
    private static final ValueEncoder INT8MULTIRANGE_ARRAY =
            new ArrayEncoder(TypeOids.INT8MULTIRANGE_ARRAY, MultirangeEncoder.INT8MULTIRANGE);
    private static final ValueEncoder NUMMULTIRANGE_ARRAY =
            new ArrayEncoder(TypeOids.NUMMULTIRANGE_ARRAY, MultirangeEncoder.NUMMULTIRANGE);
    private static final ValueEncoder DATEMULTIRANGE_ARRAY =
            new ArrayEncoder(TypeOids.DATEMULTIRANGE_ARRAY, MultirangeEncoder.DATEMULTIRANGE);
    private static final ValueEncoder TSMULTIRANGE_ARRAY =
            new ArrayEncoder(TypeOids.TSMULTIRANGE_ARRAY, MultirangeEncoder.TSMULTIRANGE);
    private static final ValueEncoder TSTZMULTIRANGE_ARRAY =
            new ArrayEncoder(TypeOids.TSTZMULTIRANGE_ARRAY, MultirangeEncoder.TSTZMULTIRANGE);

    private BinaryEncoders() {
    }

    /** The encoder for a column of type {@code typeOid}, or empty when Ashlar cannot send it. */
    public static Optional<ValueEncoder> find(int typeOid) {
        ValueEncoder result = lookup(typeOid);
        return result == null ? Optional.empty() : Optional.of(result);
    }

    /** An enum's binary form: its label, as in text ({@code enum_send}). */
    public static ValueEncoder enumLabel(int enumOid) {
        return new SameBytesEncoder(enumOid);
    }

    /** An array of an enum, in binary. */
    public static ValueEncoder enumArray(int arrayOid, int enumOid) {
        return new ArrayEncoder(arrayOid, new SameBytesEncoder(enumOid));
    }

    /** A composite type, in binary, from the encoders of its fields (not dropped) in order. */
    public static ValueEncoder composite(int typeOid, ValueEncoder[] fields) {
        return new CompositeEncoder(typeOid, fields);
    }

    /** An array of an element type the proxy found an encoder for, in binary. */
    public static ValueEncoder array(int arrayOid, ValueEncoder element) {
        return new ArrayEncoder(arrayOid, element);
    }

    /**
     * Whether an encoder splits the text of a value at ASCII delimiters among text that may be in any client_encoding
     * (an array of text, a composite value): in one whose characters may hold ASCII bytes (SJIS's 0x5C and 0x7D trail
     * bytes) it would split characters. Arrays of numbers, dates and other ASCII-printed types do not.
     */
    public static boolean splitsText(ValueEncoder encoder) {
        if (encoder instanceof CompositeEncoder) {
            return true;
        }
        if (encoder instanceof ArrayEncoder array) {
            ValueEncoder element = array.element();
            return element instanceof SameBytesEncoder || element instanceof JsonbEncoder || splitsText(element);
        }
        return false;
    }

    /** Whether a column of type {@code typeOid} can be sent in binary. */
    public static boolean supports(int typeOid) {
        return lookup(typeOid) != null;
    }

    /** The ErrorResponse message for a binary result column of an unsupported type. */
    public static String unsupportedMessage(int typeOid) {
        return "binary output format is not supported by Ashlar for type oid " + Integer.toUnsignedString(typeOid);
    }

    private static ValueEncoder lookup(int typeOid) {
        return switch (typeOid) {
            case TypeOids.BOOL -> BoolEncoder.INSTANCE;
            case TypeOids.POINT -> GeometryEncoder.POINT;
            case TypeOids.BOX -> GeometryEncoder.BOX;
            case TypeOids.TIMETZ -> TimetzEncoder.INSTANCE;
            case TypeOids.POINT_ARRAY -> POINT_ARRAY;
            case TypeOids.TIMETZ_ARRAY -> TIMETZ_ARRAY;
            case TypeOids.BYTEA -> ByteaEncoder.INSTANCE;
            case TypeOids.NAME -> SameBytesEncoder.NAME;
            case TypeOids.INT8 -> IntegerEncoder.INT8;
            case TypeOids.INT2 -> IntegerEncoder.INT2;
            case TypeOids.INT4 -> IntegerEncoder.INT4;
            case TypeOids.TEXT -> SameBytesEncoder.TEXT;
            case TypeOids.OID -> IntegerEncoder.OID;
            case TypeOids.JSON -> SameBytesEncoder.JSON;
            case TypeOids.FLOAT4 -> Float4Encoder.INSTANCE;
            case TypeOids.FLOAT8 -> Float8Encoder.INSTANCE;
            case TypeOids.BPCHAR -> SameBytesEncoder.BPCHAR;
            case TypeOids.VARCHAR -> SameBytesEncoder.VARCHAR;
            case TypeOids.DATE -> DateEncoder.INSTANCE;
            case TypeOids.TIME -> TimeEncoder.INSTANCE;
            case TypeOids.TIMESTAMP -> TimestampEncoder.WITHOUT_TIME_ZONE;
            case TypeOids.TIMESTAMPTZ -> TimestampEncoder.WITH_TIME_ZONE;
            case TypeOids.INTERVAL -> IntervalEncoder.INSTANCE;
            case TypeOids.NUMERIC -> NumericEncoder.INSTANCE;
            case TypeOids.UUID -> UuidEncoder.INSTANCE;
            case TypeOids.JSONB -> JsonbEncoder.INSTANCE;
            case TypeOids.VOID -> SameBytesEncoder.VOID;
            case TypeOids.BOOL_ARRAY -> BOOL_ARRAY;
            case TypeOids.BYTEA_ARRAY -> BYTEA_ARRAY;
            case TypeOids.NAME_ARRAY -> NAME_ARRAY;
            case TypeOids.INT2_ARRAY -> INT2_ARRAY;
            case TypeOids.INT4_ARRAY -> INT4_ARRAY;
            case TypeOids.INT8_ARRAY -> INT8_ARRAY;
            case TypeOids.TEXT_ARRAY -> TEXT_ARRAY;
            case TypeOids.OID_ARRAY -> OID_ARRAY;
            case TypeOids.JSON_ARRAY -> JSON_ARRAY;
            case TypeOids.FLOAT4_ARRAY -> FLOAT4_ARRAY;
            case TypeOids.FLOAT8_ARRAY -> FLOAT8_ARRAY;
            case TypeOids.BPCHAR_ARRAY -> BPCHAR_ARRAY;
            case TypeOids.VARCHAR_ARRAY -> VARCHAR_ARRAY;
            case TypeOids.DATE_ARRAY -> DATE_ARRAY;
            case TypeOids.TIME_ARRAY -> TIME_ARRAY;
            case TypeOids.TIMESTAMP_ARRAY -> TIMESTAMP_ARRAY;
            case TypeOids.TIMESTAMPTZ_ARRAY -> TIMESTAMPTZ_ARRAY;
            case TypeOids.INTERVAL_ARRAY -> INTERVAL_ARRAY;
            case TypeOids.NUMERIC_ARRAY -> NUMERIC_ARRAY;
            case TypeOids.UUID_ARRAY -> UUID_ARRAY;
            case TypeOids.JSONB_ARRAY -> JSONB_ARRAY;
            case TypeOids.CHAR -> CharEncoder.INSTANCE;
            case TypeOids.CHAR_ARRAY -> CHAR_ARRAY;
            case TypeOids.INET -> InetEncoder.INET;
            case TypeOids.CIDR -> InetEncoder.CIDR;
            case TypeOids.INET_ARRAY -> INET_ARRAY;
            case TypeOids.CIDR_ARRAY -> CIDR_ARRAY;
            case TypeOids.MACADDR -> MacaddrEncoder.MACADDR;
            case TypeOids.MACADDR8 -> MacaddrEncoder.MACADDR8;
            case TypeOids.MACADDR_ARRAY -> MACADDR_ARRAY;
            case TypeOids.MACADDR8_ARRAY -> MACADDR8_ARRAY;
            case TypeOids.INT4RANGE -> RangeEncoder.INT4RANGE;
            case TypeOids.INT8RANGE -> RangeEncoder.INT8RANGE;
            case TypeOids.NUMRANGE -> RangeEncoder.NUMRANGE;
            case TypeOids.DATERANGE -> RangeEncoder.DATERANGE;
            case TypeOids.TSRANGE -> RangeEncoder.TSRANGE;
            case TypeOids.TSTZRANGE -> RangeEncoder.TSTZRANGE;
            case TypeOids.INT4RANGE_ARRAY -> INT4RANGE_ARRAY;
            case TypeOids.INT8RANGE_ARRAY -> INT8RANGE_ARRAY;
            case TypeOids.NUMRANGE_ARRAY -> NUMRANGE_ARRAY;
            case TypeOids.DATERANGE_ARRAY -> DATERANGE_ARRAY;
            case TypeOids.TSRANGE_ARRAY -> TSRANGE_ARRAY;
            case TypeOids.TSTZRANGE_ARRAY -> TSTZRANGE_ARRAY;
            case TypeOids.INT4MULTIRANGE -> MultirangeEncoder.INT4MULTIRANGE;
            case TypeOids.INT8MULTIRANGE -> MultirangeEncoder.INT8MULTIRANGE;
            case TypeOids.NUMMULTIRANGE -> MultirangeEncoder.NUMMULTIRANGE;
            case TypeOids.DATEMULTIRANGE -> MultirangeEncoder.DATEMULTIRANGE;
            case TypeOids.TSMULTIRANGE -> MultirangeEncoder.TSMULTIRANGE;
            case TypeOids.TSTZMULTIRANGE -> MultirangeEncoder.TSTZMULTIRANGE;
            case TypeOids.INT4MULTIRANGE_ARRAY -> INT4MULTIRANGE_ARRAY;
            case TypeOids.INT8MULTIRANGE_ARRAY -> INT8MULTIRANGE_ARRAY;
            case TypeOids.NUMMULTIRANGE_ARRAY -> NUMMULTIRANGE_ARRAY;
            case TypeOids.DATEMULTIRANGE_ARRAY -> DATEMULTIRANGE_ARRAY;
            case TypeOids.TSMULTIRANGE_ARRAY -> TSMULTIRANGE_ARRAY;
            case TypeOids.TSTZMULTIRANGE_ARRAY -> TSTZMULTIRANGE_ARRAY;
            default -> null;
        };
    }

    /**
     * Whether the encoder of a built-in type reads text whose form DateStyle decides ({@link TypeOids#printedByDateStyle}):
     * the encoders read DateStyle ISO's.
     */
    public static boolean readsDateStyle(int typeOid) {
        return TypeOids.printedByDateStyle(typeOid);
    }
}
