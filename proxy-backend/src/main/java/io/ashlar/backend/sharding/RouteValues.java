package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.route.RouteParameters;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * A client's bound parameter values as the sharding algorithms take them, converted only when
 * the router asks for one (most statements look at one or two). Text values of an integer type,
 * or of an unspecified type that reads as an integer, become Integer/Long/BigInteger exactly as
 * an integer literal in the SQL would, so that a row routes the same whether the client wrote
 * its key inline, bound it as text or bound it as binary int8.
 */
public final class RouteValues implements RouteParameters {

    private static final int INT2 = 21;
    private static final int INT4 = 23;
    private static final int INT8 = 20;
    private static final int OID = 26;
    private static final int NUMERIC = 1700;
    private static final int FLOAT4 = 700;
    private static final int FLOAT8 = 701;
    private static final int BOOL = 16;
    private static final int DATE = 1082;
    private static final int TIMESTAMP = 1114;
    private static final int TIMESTAMPTZ = 1184;
    private static final int UUID_OID = 2950;
    private static final LocalDate POSTGRES_EPOCH = LocalDate.of(2000, 1, 1);
    private static final LocalDateTime POSTGRES_EPOCH_TIME = POSTGRES_EPOCH.atStartOfDay();
    private static final Object NOT_CONVERTED = new Object();

    private final ParameterValues values;
    private final Object[] converted;

    public RouteValues(ParameterValues values) {
        this.values = values;
        this.converted = new Object[values.values().length];
    }

    @Override
    public int count() {
        return converted.length;
    }

    @Override
    public Object value(int index) {
        Object result = converted[index];
        if (result == null) {
            byte[] raw = values.values()[index];
            if (raw == null) {
                return null;
            }
            result = values.formats()[index] == 1 ? binary(values.types()[index], raw) : text(values.types()[index], raw);
            converted[index] = result == null ? NOT_CONVERTED : result;
        }
        return result == NOT_CONVERTED ? null : result;
    }

    /** An integer written as text, as the smallest of Integer, Long, BigInteger that holds it; null when it is not one. */
    public static Comparable<?> integer(String text) {
        int n = text.length();
        int start = n > 0 && (text.charAt(0) == '-' || text.charAt(0) == '+') ? 1 : 0;
        if (n == start || n - start > 400) {
            return null;
        }
        for (int i = start; i < n; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        if (n - start <= 9) {
            return Integer.parseInt(text);
        }
        BigInteger big = new BigInteger(text);
        if (big.bitLength() < 32) {
            return big.intValue();
        }
        return big.bitLength() < 64 ? (Comparable<?>) big.longValue() : big;
    }

    private static Object text(int type, byte[] raw) {
        String text = new String(raw, StandardCharsets.UTF_8);
        try {
            switch (type) {
                case INT2, INT4, INT8, OID, 0 -> {
                    Comparable<?> number = integer(text.trim());
                    return number != null ? number : text;
                }
                case NUMERIC -> {
                    Comparable<?> number = integer(text.trim());
                    return number != null ? number : new BigDecimal(text.trim());
                }
                case FLOAT4, FLOAT8 -> {
                    return Double.valueOf(text.trim());
                }
                case BOOL -> {
                    return text.startsWith("t") || text.startsWith("T") || text.equals("1") || text.equalsIgnoreCase("on")
                            || text.equalsIgnoreCase("yes");
                }
                case DATE -> {
                    return LocalDate.parse(text.trim());
                }
                case TIMESTAMP -> {
                    return LocalDateTime.parse(text.trim().replace(' ', 'T'));
                }
                case TIMESTAMPTZ -> {
                    return OffsetDateTime.parse(isoOffset(text.trim().replace(' ', 'T')));
                }
                default -> {
                    return text;
                }
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            // The backend will reject the value with its own error; route it as the text it is.
            return text;
        }
    }

    /** PostgreSQL writes offsets as {@code +01} or {@code +05:30}; java.time wants {@code +01:00}. */
    private static String isoOffset(String text) {
        int sign = Math.max(text.lastIndexOf('+'), text.lastIndexOf('-'));
        if (sign > 10 && text.length() - sign == 3) {
            return text + ":00";
        }
        return text;
    }

    private static Object binary(int type, byte[] raw) {
        ByteBuffer b = ByteBuffer.wrap(raw);
        return switch (type) {
            case INT2 -> raw.length == 2 ? (Object) (int) b.getShort() : raw;
            case INT4 -> raw.length == 4 ? (Object) b.getInt() : raw;
            case OID -> raw.length == 4 ? (Object) Integer.toUnsignedLong(b.getInt()) : raw;
            case INT8 -> {
                if (raw.length != 8) {
                    yield raw;
                }
                long v = b.getLong();
                yield v == (int) v ? (Object) (int) v : (Object) v;
            }
            case FLOAT4 -> raw.length == 4 ? (Object) (double) b.getFloat() : raw;
            case FLOAT8 -> raw.length == 8 ? (Object) b.getDouble() : raw;
            case BOOL -> raw.length == 1 ? (Object) (raw[0] != 0) : raw;
            case DATE -> raw.length == 4 ? (Object) POSTGRES_EPOCH.plusDays(b.getInt()) : raw;
            case TIMESTAMP -> raw.length == 8 ? (Object) POSTGRES_EPOCH_TIME.plusNanos(b.getLong() * 1000) : raw;
            case TIMESTAMPTZ -> raw.length == 8
                    ? (Object) POSTGRES_EPOCH_TIME.plusNanos(b.getLong() * 1000).atOffset(ZoneOffset.UTC) : raw;
            case UUID_OID -> raw.length == 16 ? (Object) new UUID(b.getLong(), b.getLong()).toString() : raw;
            case NUMERIC -> numeric(b);
            default -> new String(raw, StandardCharsets.UTF_8);
        };
    }

    /** numeric_send's format: ndigits, weight, sign, dscale, then base-10000 digits. */
    private static Object numeric(ByteBuffer b) {
        if (b.remaining() < 8) {
            return null;
        }
        int ndigits = b.getShort();
        int weight = b.getShort();
        int sign = b.getShort() & 0xffff;
        int dscale = b.getShort();
        if (sign == 0xC000 || sign == 0xD000 || sign == 0xF000 || b.remaining() < ndigits * 2) {
            return null;
        }
        BigInteger unscaled = BigInteger.ZERO;
        BigInteger tenThousand = BigInteger.valueOf(10_000);
        for (int i = 0; i < ndigits; i++) {
            unscaled = unscaled.multiply(tenThousand).add(BigInteger.valueOf(b.getShort()));
        }
        BigDecimal value = new BigDecimal(unscaled, (ndigits - 1 - weight) * 4);
        if (sign == 0x4000) {
            value = value.negate();
        }
        value = value.setScale(Math.max(dscale, 0), java.math.RoundingMode.UNNECESSARY);
        if (value.scale() == 0) {
            Comparable<?> integer = integer(value.toPlainString());
            if (integer != null) {
                return integer;
            }
        }
        return value;
    }
}
