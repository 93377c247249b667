package io.ashlar.route;

import io.ashlar.parser.statement.LiteralKind;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.ParameterValue;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.route.rule.ShardingValues;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Optional;
import java.util.Locale;

/**
 * Turns the literals and parameters of sharding conditions and INSERT rows into the Java values the sharding
 * algorithms take, typed the way ShardingSphere types an integer literal so that rows land where ShardingSphere put
 * them: an integer is an Integer when it fits 32 bits, a Long when it fits 64, else a BigInteger; a string a String;
 * a cast or typed literal ({@code '5'::int8}, {@code DATE '2024-01-01'}, {@code TIMESTAMP '...'}) takes its type's
 * Java value (LocalDate, LocalDateTime, OffsetDateTime, ...). Parameters come as the proxy converted them; a text
 * parameter with a cast is converted like a cast literal. Text that does not parse as its cast type stays text: the
 * algorithm then decides, and PostgreSQL will reject the statement anyway. {@code null} stands for SQL NULL.
 *
 * <p>Every number is then put in one canonical form ({@link ShardingValues#normalise}), whatever its spelling:
 * PostgreSQL compares {@code 7}, {@code 7::int8}, {@code 7.0}, {@code '7'::bigint} and a bound int8 parameter 7 as
 * the same value, so they must reach the algorithm as the same Java value.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-syntax-lexical.html#SQL-SYNTAX-CONSTANTS">4.1.2. Constants</a>
 * @see <a href="https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-DATETIME-INPUT">8.5.1. Date/Time Input</a>
 */
final class SqlValues {

    private static final DateTimeFormatter DATE_TIME = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd")
            .optionalStart().appendLiteral(' ').appendPattern("HH:mm")
            .optionalStart().appendPattern(":ss").optionalEnd()
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .optionalEnd()
            .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
            .parseDefaulting(ChronoField.MINUTE_OF_HOUR, 0)
            .toFormatter();

    private SqlValues() {
    }

    /**
     * The Java value of a literal or of a parameter's bound value.
     *
     * @return the value, or {@code null} for SQL NULL
     * @throws RouteException 08P01 when the parameter has no bound value
     */
    static Object value(SqlValue value, RouteParameters parameters) {
        return switch (value) {
            case LiteralValue literal -> literal(literal);
            case ParameterValue parameter -> parameter(parameter, parameters);
        };
    }

    private static Object parameter(ParameterValue parameter, RouteParameters parameters) {
        int index = parameter.number() - 1;
        if (index < 0 || index >= parameters.count()) {
            throw new RouteException("08P01", "the statement uses parameter $" + parameter.number() + " but " + parameters.count() + " parameters were bound");
        }
        Object result = parameters.value(index);
        if (result instanceof String text && parameter.typeName().isPresent()) {
            return cast(text, typeName(parameter.typeName()));
        }
        return ShardingValues.normalise(result);
    }

    /**
     * Whether a value is text of a known text type, which PostgreSQL compares and stores as the string it is: a
     * parameter of a declared or backend-inferred type ({@link RouteParameters#typed}), or a literal or parameter cast
     * to a text type ({@code '41'::text}, {@code $1::varchar}). A quoted literal or a parameter of unknown type is not:
     * PostgreSQL converts it to the type of the column it meets, which may be a number.
     */
    static boolean isKnownText(SqlValue value, RouteParameters parameters) {
        return switch (value) {
            case LiteralValue literal -> literal.kind() == LiteralKind.STRING && isText(typeName(literal.typeName()));
            case ParameterValue parameter -> parameter.typeName().isPresent() ? isText(typeName(parameter.typeName()))
                    : parameter.number() >= 1 && parameter.number() <= parameters.count() && parameters.typed(parameter.number() - 1);
        };
    }

    private static boolean isText(String type) {
        return switch (type) {
            case "text", "varchar", "character varying", "bpchar", "character", "char", "name" -> true;
            default -> false;
        };
    }

    static Object literal(LiteralValue literal) {
        String text = literal.value();
        String type = typeName(literal.typeName());
        return switch (literal.kind()) {
            case INTEGER -> type.isEmpty() || isInteger(type) ? integer(text) : cast(text, type);
            case DECIMAL -> type.isEmpty() ? ShardingValues.normalise(new BigDecimal(text)) : cast(text, type);
            case STRING -> type.isEmpty() ? text : cast(text, type);
            case BOOLEAN -> type.isEmpty() ? Boolean.valueOf(text) : cast(text, type);
        };
    }

    /**
     * The Java value of text cast to {@code type} (a normalised type name), numbers in their canonical form, or the
     * text when it does not parse.
     */
    static Object cast(String text, String type) {
        String trimmed = text.strip();
        try {
            switch (type) {
                case "int2", "smallint", "int4", "int", "integer", "int8", "bigint" -> {
                    return isDecimalText(trimmed) ? rounded(trimmed) : integer(trimmed);
                }
                case "numeric", "decimal" -> {
                    return ShardingValues.normalise(new BigDecimal(trimmed));
                }
                case "float4", "real" -> {
                    return ShardingValues.normalise(Float.valueOf(trimmed));
                }
                case "float8", "float", "double precision" -> {
                    return ShardingValues.normalise(Double.valueOf(trimmed));
                }
                case "uuid" -> {
                    String uuid = ShardingValues.uuid(text);
                    return uuid == null ? text : uuid;
                }
                case "date" -> {
                    return LocalDate.parse(trimmed);
                }
                case "timestamp", "timestamp without time zone" -> {
                    return LocalDateTime.parse(normaliseDateTime(trimmed), DATE_TIME);
                }
                case "timestamptz", "timestamp with time zone" -> {
                    return ShardingValues.normalise(offsetDateTime(trimmed));
                }
                case "time", "time without time zone" -> {
                    return LocalTime.parse(trimmed);
                }
                case "bool", "boolean" -> {
                    return bool(trimmed, text);
                }
                default -> {
                    return text;
                }
            }
        } catch (NumberFormatException | DateTimeException e) {
            return text;
        }
    }

    /** An integer's text as Integer, Long or BigInteger by size. */
    static Object integer(String text) {
        int digits = text.length() - (text.startsWith("-") || text.startsWith("+") ? 1 : 0);
        if (digits <= 9) {
            return Integer.valueOf(Integer.parseInt(text));
        }
        if (digits <= 18) {
            long value = Long.parseLong(text);
            return value == (int) value ? (Object) Integer.valueOf((int) value) : (Object) Long.valueOf(value);
        }
        BigInteger value = new BigInteger(text);
        if (value.bitLength() < 32) {
            return value.intValue();
        }
        return value.bitLength() < 64 ? (Object) Long.valueOf(value.longValue()) : value;
    }

    private static Object rounded(String text) {
        return integer(new BigDecimal(text).setScale(0, RoundingMode.HALF_UP).toPlainString());
    }

    private static boolean isDecimalText(String text) {
        return text.indexOf('.') >= 0 || text.indexOf('e') >= 0 || text.indexOf('E') >= 0;
    }

    private static Object bool(String trimmed, String text) {
        return switch (trimmed.toLowerCase(Locale.ROOT)) {
            case "t", "true", "y", "yes", "on", "1" -> Boolean.TRUE;
            case "f", "false", "n", "no", "off", "0" -> Boolean.FALSE;
            default -> text;
        };
    }

    private static String normaliseDateTime(String text) {
        return text.length() > 10 && text.charAt(10) == 'T' ? text.substring(0, 10) + ' ' + text.substring(11) : text;
    }

    private static OffsetDateTime offsetDateTime(String text) {
        String value = normaliseDateTime(text);
        int split = -1;
        if (value.endsWith("Z") || value.endsWith("z")) {
            split = value.length() - 1;
        } else {
            for (int i = value.length() - 1; i > 10; i--) {
                char c = value.charAt(i);
                if (c == '+' || c == '-') {
                    split = i;
                    break;
                }
            }
        }
        if (split < 0) {
            return LocalDateTime.parse(value.strip(), DATE_TIME).atOffset(ZoneOffset.UTC);
        }
        LocalDateTime local = LocalDateTime.parse(value.substring(0, split).strip(), DATE_TIME);
        String offset = value.substring(split).strip();
        return local.atOffset(offset.equalsIgnoreCase("z") ? ZoneOffset.UTC : ZoneOffset.of(offset));
    }

    /** A type name without {@code pg_catalog.} and modifiers: {@code numeric(10,2)} is {@code numeric}; empty when absent. */
    static String typeName(Optional<String> type) {
        if (type.isEmpty()) {
            return "";
        }
        String result = type.get();
        if (result.startsWith("pg_catalog.")) {
            result = result.substring("pg_catalog.".length());
        }
        int parenthesis = result.indexOf('(');
        if (parenthesis >= 0) {
            int close = result.indexOf(')', parenthesis);
            result = (result.substring(0, parenthesis) + (close >= 0 ? result.substring(close + 1) : "")).strip();
        }
        return result;
    }

    private static boolean isInteger(String type) {
        return switch (type) {
            case "int2", "smallint", "int4", "int", "integer", "int8", "bigint" -> true;
            default -> false;
        };
    }
}
