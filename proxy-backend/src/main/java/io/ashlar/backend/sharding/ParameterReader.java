package io.ashlar.backend.sharding;

import io.ashlar.route.UnreadableValue;
import io.ashlar.route.rule.ShardingValues;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;

/**
 * Reads one bound parameter value as PostgreSQL reads it: text by the type's input function
 * ({@code int4in}, {@code numeric_in}, {@code date_in}, {@code uuid_in}, ...), binary by its receive
 * function ({@code int8recv}, {@code numeric_recv}, {@code date_recv}: days since 2000-01-01,
 * {@code timestamp_recv}: microseconds since 2000-01-01, {@code uuid_recv}, ...), into the Java value
 * the sharding algorithms take: Integer/Long/BigDecimal for numbers (put in canonical form by the
 * router), String for text, the canonical lower-case text of a uuid, LocalDate, LocalTime,
 * LocalDateTime, OffsetDateTime at UTC for a timestamp with time zone (the instant), Boolean,
 * Float, Double.
 *
 * <p>What PostgreSQL would read otherwise than Ashlar can tell for certain (bytes of the wrong
 * length, text in a spelling Ashlar does not read, a type it does not know, a timestamp with time
 * zone without an offset, which PostgreSQL reads in the session's TimeZone) is an
 * {@link UnreadableValue}, never a guess. A parameter whose type is unknown (0: not declared and
 * not described) is its text when sent as text, for the router to consider as text and as number;
 * unreadable when sent in binary. Integers are read from the bytes by hand; nothing throws on a
 * value that reads.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-FORMAT-CODES">55.1.3. Formats and Format Codes</a>
 * @see <a href="https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-DATETIME-INPUT">8.5.1. Date/Time Input</a>
 */
final class ParameterReader {

    static final int UNSPECIFIED = 0;
    static final int BOOL = 16;
    static final int CHAR = 18;
    static final int NAME = 19;
    static final int INT8 = 20;
    static final int INT2 = 21;
    static final int INT4 = 23;
    static final int TEXT = 25;
    static final int OID = 26;
    static final int FLOAT4 = 700;
    static final int FLOAT8 = 701;
    static final int UNKNOWN = 705;
    static final int BPCHAR = 1042;
    static final int VARCHAR = 1043;
    static final int DATE = 1082;
    static final int TIME = 1083;
    static final int TIMESTAMP = 1114;
    static final int TIMESTAMPTZ = 1184;
    static final int NUMERIC = 1700;
    static final int UUID = 2950;

    private static final LocalDate POSTGRES_EPOCH = LocalDate.of(2000, 1, 1);
    private static final LocalDateTime POSTGRES_EPOCH_TIME = POSTGRES_EPOCH.atStartOfDay();
    private static final long MICROS_PER_DAY = 86_400_000_000L;
    private static final int NUMERIC_POS = 0x0000;
    private static final int NUMERIC_NEG = 0x4000;
    private static final int NUMERIC_DSCALE_MASK = 0x3FFF;
    private static final BigInteger TEN_THOUSAND = BigInteger.valueOf(10_000);

    private ParameterReader() {
    }

    /**
     * The value of one non-NULL parameter.
     *
     * @param type   the parameter's type OID as PostgreSQL gives it (0: unknown)
     * @param binary whether the client sent it in binary
     * @return the Java value, or an {@link UnreadableValue}
     */
    static Object read(int type, boolean binary, byte[] raw) {
        return read(type, binary, raw, StandardCharsets.UTF_8);
    }

    /**
     * The value of one non-NULL parameter, its text (of text types, in either format) in {@code text}: the session's
     * client_encoding, in which PostgreSQL reads it.
     */
    static Object read(int type, boolean binary, byte[] raw, java.nio.charset.Charset text) {
        return binary ? binary(type, raw, text) : text(type, raw, text);
    }

    /** Whether the router reads values of this type at all (else they are unreadable whatever their bytes). */
    static boolean known(int type) {
        return switch (type) {
            case BOOL, CHAR, NAME, INT8, INT2, INT4, TEXT, OID, FLOAT4, FLOAT8, UNKNOWN, BPCHAR, VARCHAR, DATE, TIME, TIMESTAMP, TIMESTAMPTZ,
                 NUMERIC, UUID -> true;
            default -> false;
        };
    }

    // ------------------------------------------------------------------ text

    private static Object text(int type, byte[] raw, java.nio.charset.Charset text) {
        switch (type) {
            case INT2 -> {
                return integer(raw, Short.MIN_VALUE, Short.MAX_VALUE, "smallint");
            }
            case INT4 -> {
                return integer(raw, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer");
            }
            case INT8 -> {
                return integer(raw, Long.MIN_VALUE, Long.MAX_VALUE, "bigint");
            }
            case OID -> {
                Object result = integer(raw, -0x8000_0000L, 0xFFFF_FFFFL, "oid");
                return result instanceof Integer number && number < 0 ? (Object) Integer.toUnsignedLong(number) : result;
            }
            case NUMERIC -> {
                return numericText(raw);
            }
            case FLOAT4, FLOAT8 -> {
                return floatText(raw, type == FLOAT4);
            }
            case BOOL -> {
                return boolText(raw);
            }
            case DATE, TIMESTAMP, TIMESTAMPTZ, TIME -> {
                return DateTimeInput.read(type, raw);
            }
            case UUID -> {
                String uuid = utf8(raw);
                String result = uuid == null ? null : ShardingValues.uuid(uuid);
                return result != null ? result : invalidText(raw, "uuid");
            }
            case TEXT, VARCHAR, NAME, CHAR, UNKNOWN, UNSPECIFIED -> {
                return string(raw, text);
            }
            case BPCHAR -> {
                return bpchar(raw, text);
            }
            default -> {
                return unknownType(type);
            }
        }
    }

    /**
     * {@code pg_strtoint16/32/64}: optional white space, an optional sign, decimal digits, optional
     * white space. (PostgreSQL 16 also reads {@code 0x1F}, {@code 0o17}, {@code 0b101} and
     * {@code 1_000}; those are unreadable here, not misread.)
     */
    private static Object integer(byte[] raw, long min, long max, String typeName) {
        int n = raw.length;
        int i = 0;
        while (i < n && isSpace(raw[i])) {
            i++;
        }
        boolean negative = false;
        if (i < n && (raw[i] == '-' || raw[i] == '+')) {
            negative = raw[i] == '-';
            i++;
        }
        int start = i;
        long value = 0;
        boolean overflow = false;
        while (i < n && raw[i] >= '0' && raw[i] <= '9') {
            int digit = raw[i] - '0';
            // accumulate negatively: Long.MIN_VALUE has no positive counterpart
            if (value < (Long.MIN_VALUE + digit) / 10) {
                overflow = true;
            } else {
                value = value * 10 - digit;
            }
            i++;
        }
        int digits = i - start;
        while (i < n && isSpace(raw[i])) {
            i++;
        }
        if (digits == 0 || i != n) {
            return invalidText(raw, typeName);
        }
        if (!negative) {
            if (value == Long.MIN_VALUE) {
                overflow = true;
            }
            value = -value;
        }
        if (overflow || value < min || value > max) {
            return new UnreadableValue("22003", "is \"" + printable(raw) + "\", out of range for type " + typeName);
        }
        return value == (int) value ? (Object) (int) value : (Object) value;
    }

    /** {@code numeric_in}: a decimal number with an optional exponent; NaN and infinities route nowhere. */
    private static Object numericText(byte[] raw) {
        int from = 0;
        int to = raw.length;
        while (from < to && isSpace(raw[from])) {
            from++;
        }
        while (to > from && isSpace(raw[to - 1])) {
            to--;
        }
        if (!isDecimal(raw, from, to)) {
            return invalidText(raw, "numeric");
        }
        return new BigDecimal(new String(raw, from, to - from, StandardCharsets.ISO_8859_1));
    }

    /** {@code float4in} / {@code float8in} of a decimal number; NaN, infinities and hexadecimal forms are unreadable. */
    private static Object floatText(byte[] raw, boolean single) {
        int from = 0;
        int to = raw.length;
        while (from < to && isSpace(raw[from])) {
            from++;
        }
        while (to > from && isSpace(raw[to - 1])) {
            to--;
        }
        if (!isDecimal(raw, from, to)) {
            return invalidText(raw, single ? "real" : "double precision");
        }
        String text = new String(raw, from, to - from, StandardCharsets.ISO_8859_1);
        if (single) {
            float result = Float.parseFloat(text);
            return Float.isInfinite(result) ? new UnreadableValue("22003", "is \"" + text + "\", out of range for type real") : (Object) result;
        }
        double result = Double.parseDouble(text);
        return Double.isInfinite(result) ? new UnreadableValue("22003", "is \"" + text + "\", out of range for type double precision") : (Object) result;
    }

    /** {@code [+-] (digits [. digits] | . digits) [(e|E) [+-] digits]}, ASCII digits only. */
    private static boolean isDecimal(byte[] raw, int from, int to) {
        int i = from;
        if (i < to && (raw[i] == '+' || raw[i] == '-')) {
            i++;
        }
        int digits = 0;
        while (i < to && raw[i] >= '0' && raw[i] <= '9') {
            i++;
            digits++;
        }
        if (i < to && raw[i] == '.') {
            i++;
            while (i < to && raw[i] >= '0' && raw[i] <= '9') {
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return false;
        }
        if (i < to && (raw[i] == 'e' || raw[i] == 'E')) {
            i++;
            if (i < to && (raw[i] == '+' || raw[i] == '-')) {
                i++;
            }
            int exponent = 0;
            while (i < to && raw[i] >= '0' && raw[i] <= '9') {
                i++;
                exponent++;
            }
            if (exponent == 0 || exponent > 9) {
                return false;
            }
        }
        return i == to;
    }

    /**
     * {@code boolin}: after white space is trimmed, any prefix (ignoring case) of {@code true}, {@code false},
     * {@code yes}, {@code no}; {@code on}, {@code off} (at least two letters); {@code 1}, {@code 0}.
     */
    private static Object boolText(byte[] raw) {
        int from = 0;
        int to = raw.length;
        while (from < to && isSpace(raw[from])) {
            from++;
        }
        while (to > from && isSpace(raw[to - 1])) {
            to--;
        }
        int length = to - from;
        if (length > 0) {
            switch (Character.toLowerCase((char) raw[from])) {
                case 't' -> {
                    if (prefixOf(raw, from, length, "true")) {
                        return Boolean.TRUE;
                    }
                }
                case 'f' -> {
                    if (prefixOf(raw, from, length, "false")) {
                        return Boolean.FALSE;
                    }
                }
                case 'y' -> {
                    if (prefixOf(raw, from, length, "yes")) {
                        return Boolean.TRUE;
                    }
                }
                case 'n' -> {
                    if (prefixOf(raw, from, length, "no")) {
                        return Boolean.FALSE;
                    }
                }
                case 'o' -> {
                    if (length >= 2 && prefixOf(raw, from, length, "on")) {
                        return Boolean.TRUE;
                    }
                    if (length >= 2 && prefixOf(raw, from, length, "off")) {
                        return Boolean.FALSE;
                    }
                }
                case '1' -> {
                    if (length == 1) {
                        return Boolean.TRUE;
                    }
                }
                case '0' -> {
                    if (length == 1) {
                        return Boolean.FALSE;
                    }
                }
                default -> {
                    // not a boolean
                }
            }
        }
        return invalidText(raw, "boolean");
    }

    private static boolean prefixOf(byte[] raw, int from, int length, String word) {
        if (length > word.length()) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (Character.toLowerCase((char) raw[from + i]) != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** {@code bpchar}: trailing spaces do not count (PostgreSQL compares {@code 'ab'} and {@code 'ab  '} as equal). */
    private static Object bpchar(byte[] raw, java.nio.charset.Charset text) {
        int to = raw.length;
        while (to > 0 && raw[to - 1] == ' ') {
            to--;
        }
        return string(to == raw.length ? raw : java.util.Arrays.copyOf(raw, to), text);
    }

    private static Object string(byte[] raw, java.nio.charset.Charset text) {
        String result = text == StandardCharsets.UTF_8 ? utf8(raw) : decoded(raw, text);
        return result != null ? result
                : new UnreadableValue("22021", "is not valid " + text.name() + " text (or holds a zero byte)");
    }

    /** Strict decoding in a client_encoding's charset, no zero byte; {@code null} when the bytes are not such text. */
    private static String decoded(byte[] raw, java.nio.charset.Charset text) {
        for (byte each : raw) {
            if (each == 0) {
                return null;
            }
        }
        try {
            return text.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** Strict UTF-8 with no zero byte, as PostgreSQL's {@code pg_verify_mbstr} takes it; {@code null} when it is not. */
    static String utf8(byte[] raw) {
        boolean ascii = true;
        for (byte each : raw) {
            if (each == 0) {
                return null;
            }
            if (each < 0) {
                ascii = false;
            }
        }
        if (ascii) {
            return new String(raw, StandardCharsets.ISO_8859_1);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ binary

    private static Object binary(int type, byte[] raw, java.nio.charset.Charset text) {
        switch (type) {
            case INT2 -> {
                return raw.length == 2 ? (Object) (int) (short) ((raw[0] << 8) | (raw[1] & 0xFF)) : wrongLength(raw, 2, "int2");
            }
            case INT4 -> {
                return raw.length == 4 ? (Object) int32(raw) : wrongLength(raw, 4, "int4");
            }
            case OID -> {
                return raw.length == 4 ? (Object) Integer.toUnsignedLong(int32(raw)) : wrongLength(raw, 4, "oid");
            }
            case INT8 -> {
                if (raw.length != 8) {
                    return wrongLength(raw, 8, "int8");
                }
                long value = ((long) int32(raw) << 32) | (int32(raw, 4) & 0xFFFF_FFFFL);
                return value == (int) value ? (Object) (int) value : (Object) value;
            }
            default -> {
                return binaryOther(type, raw, text);
            }
        }
    }

    private static int int32(byte[] raw) {
        return int32(raw, 0);
    }

    private static int int32(byte[] raw, int offset) {
        return (raw[offset] << 24) | ((raw[offset + 1] & 0xFF) << 16) | ((raw[offset + 2] & 0xFF) << 8) | (raw[offset + 3] & 0xFF);
    }

    private static Object binaryOther(int type, byte[] raw, java.nio.charset.Charset text) {
        ByteBuffer b = ByteBuffer.wrap(raw);
        switch (type) {
            case FLOAT4 -> {
                if (raw.length != 4) {
                    return wrongLength(raw, 4, "float4");
                }
                float value = b.getFloat();
                return Float.isNaN(value) || Float.isInfinite(value) ? nonFinite("float4") : (Object) value;
            }
            case FLOAT8 -> {
                if (raw.length != 8) {
                    return wrongLength(raw, 8, "float8");
                }
                double value = b.getDouble();
                return Double.isNaN(value) || Double.isInfinite(value) ? nonFinite("float8") : (Object) value;
            }
            case BOOL -> {
                return raw.length == 1 ? (Object) (raw[0] != 0) : wrongLength(raw, 1, "bool");
            }
            case DATE -> {
                if (raw.length != 4) {
                    return wrongLength(raw, 4, "date");
                }
                int days = b.getInt();
                return days == Integer.MAX_VALUE || days == Integer.MIN_VALUE ? nonFinite("date") : (Object) POSTGRES_EPOCH.plusDays(days);
            }
            case TIME -> {
                if (raw.length != 8) {
                    return wrongLength(raw, 8, "time");
                }
                long micros = b.getLong();
                if (micros < 0 || micros >= MICROS_PER_DAY) {
                    return new UnreadableValue("22P03", "is a binary time of " + micros + " microseconds, not a time of day java.time holds");
                }
                return LocalTime.ofNanoOfDay(micros * 1000);
            }
            case TIMESTAMP, TIMESTAMPTZ -> {
                if (raw.length != 8) {
                    return wrongLength(raw, 8, type == TIMESTAMP ? "timestamp" : "timestamptz");
                }
                long micros = b.getLong();
                if (micros == Long.MAX_VALUE || micros == Long.MIN_VALUE) {
                    return nonFinite(type == TIMESTAMP ? "timestamp" : "timestamptz");
                }
                LocalDateTime local = POSTGRES_EPOCH_TIME.plusSeconds(Math.floorDiv(micros, 1_000_000L))
                        .plusNanos(Math.floorMod(micros, 1_000_000L) * 1000L);
                return type == TIMESTAMP ? local : local.atOffset(ZoneOffset.UTC);
            }
            case UUID -> {
                if (raw.length != 16) {
                    return wrongLength(raw, 16, "uuid");
                }
                return new java.util.UUID(b.getLong(), b.getLong()).toString();
            }
            case NUMERIC -> {
                return numericBinary(b);
            }
            case TEXT, VARCHAR, NAME, CHAR, UNKNOWN -> {
                return string(raw, text);
            }
            case BPCHAR -> {
                return bpchar(raw, text);
            }
            case UNSPECIFIED -> {
                return new UnreadableValue("0A000", "is binary data of a parameter of unspecified type (0) that no backend described");
            }
            default -> {
                return unknownType(type);
            }
        }
    }

    /**
     * {@code numeric_recv}: ndigits, weight, sign, dscale, then ndigits base-10000 digits; digits the dscale hides
     * are truncated away, as {@code numeric_recv} does.
     */
    private static Object numericBinary(ByteBuffer b) {
        if (b.remaining() < 8) {
            return wrongLength(b.array(), 8, "numeric");
        }
        int ndigits = b.getShort() & 0xFFFF;
        int weight = b.getShort();
        int sign = b.getShort() & 0xFFFF;
        int dscale = b.getShort() & 0xFFFF;
        if (b.remaining() != ndigits * 2) {
            return new UnreadableValue("22P03", "is a binary numeric of " + b.capacity() + " bytes announcing " + ndigits + " digits");
        }
        if (sign != NUMERIC_POS && sign != NUMERIC_NEG) {
            return sign == 0xC000 || sign == 0xD000 || sign == 0xF000 ? nonFinite("numeric")
                    : new UnreadableValue("22P03", "is a binary numeric with an invalid sign");
        }
        if ((dscale & NUMERIC_DSCALE_MASK) != dscale) {
            return new UnreadableValue("22P03", "is a binary numeric with an invalid scale");
        }
        BigInteger unscaled = BigInteger.ZERO;
        long small = 0;
        for (int i = 0; i < ndigits; i++) {
            int digit = b.getShort();
            if (digit < 0 || digit >= 10_000) {
                return new UnreadableValue("22P03", "is a binary numeric with an invalid digit");
            }
            if (i < 4) {
                small = small * 10_000 + digit;
            } else {
                if (i == 4) {
                    unscaled = BigInteger.valueOf(small);
                }
                unscaled = unscaled.multiply(TEN_THOUSAND).add(BigInteger.valueOf(digit));
            }
        }
        BigDecimal value = new BigDecimal(ndigits <= 4 ? BigInteger.valueOf(small) : unscaled, (ndigits - 1 - weight) * 4);
        if (sign == NUMERIC_NEG) {
            value = value.negate();
        }
        return value.scale() > dscale ? value.setScale(dscale, RoundingMode.DOWN) : value;
    }

    // ------------------------------------------------------------------ refusals

    private static UnreadableValue wrongLength(byte[] raw, int expected, String typeName) {
        return new UnreadableValue("22P03", "is " + raw.length + " bytes, but a binary " + typeName + " is " + (expected == 8 && typeName.equals("numeric")
                ? "at least 8" : String.valueOf(expected)));
    }

    private static UnreadableValue nonFinite(String typeName) {
        return new UnreadableValue("22023", "is a " + typeName + " NaN or infinity, which no shard holds by value");
    }

    private static UnreadableValue unknownType(int type) {
        return new UnreadableValue("0A000", "has type OID " + type + ", which Ashlar does not read sharding values of (it reads integers, numeric,"
                + " float, bool, text, varchar, char, uuid, date, time, timestamp, timestamptz)");
    }

    static UnreadableValue invalidText(byte[] raw, String typeName) {
        return new UnreadableValue("22P02", "is \"" + printable(raw) + "\", which Ashlar does not read as type " + typeName
                + " for certain (it reads the spellings PostgreSQL prints)");
    }

    private static String printable(byte[] raw) {
        String text = new String(raw, 0, Math.min(raw.length, 64), StandardCharsets.UTF_8);
        return raw.length > 64 ? text + "..." : text;
    }

    /** PostgreSQL's {@code isspace} in input functions: space, tab, newline, vertical tab, form feed, carriage return. */
    static boolean isSpace(byte b) {
        return b == ' ' || (b >= '\t' && b <= '\r');
    }
}
