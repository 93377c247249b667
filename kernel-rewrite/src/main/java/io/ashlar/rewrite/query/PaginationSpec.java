package io.ashlar.rewrite.query;

import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.PaginationValue;
import io.ashlar.parser.statement.ParameterValue;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteParameters;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where a multi-shard query's LIMIT and OFFSET come from: literals, read once, or parameters,
 * read at each execution. The proxy skips OFFSET rows and stops after LIMIT rows itself, with
 * PostgreSQL's rules (<a href="https://www.postgresql.org/docs/current/sql-select.html#SQL-LIMIT">LIMIT Clause</a>):
 * a NULL LIMIT is no limit, a NULL OFFSET is 0, a negative one is an error, and a fractional
 * count is rounded as the cast to {@code bigint} rounds it.
 */
public final class PaginationSpec {

    /** No LIMIT and no OFFSET. */
    public static final PaginationSpec NONE = new PaginationSpec(-1, 0, -1, -1);

    private final int offsetParameter;
    private final long offsetLiteral;
    private final int limitParameter;
    private final long limitLiteral;

    /** Parameters are 0-based indexes or -1; a literal LIMIT of -1 means none. */
    private PaginationSpec(int offsetParameter, long offsetLiteral, int limitParameter, long limitLiteral) {
        this.offsetParameter = offsetParameter;
        this.offsetLiteral = offsetLiteral;
        this.limitParameter = limitParameter;
        this.limitLiteral = limitLiteral;
    }

    static PaginationSpec of(Optional<PaginationValue> offset, Optional<PaginationValue> limit) {
        int offsetParameter = -1;
        long offsetLiteral = 0;
        int limitParameter = -1;
        long limitLiteral = -1;
        if (offset.isPresent()) {
            SqlValue value = offset.get().value();
            if (value instanceof ParameterValue parameter) {
                offsetParameter = parameter.number() - 1;
            } else {
                offsetLiteral = checked(literal((LiteralValue) value), "OFFSET");
            }
        }
        if (limit.isPresent()) {
            SqlValue value = limit.get().value();
            if (value instanceof ParameterValue parameter) {
                limitParameter = parameter.number() - 1;
            } else {
                limitLiteral = checked(literal((LiteralValue) value), "LIMIT");
            }
        }
        return new PaginationSpec(offsetParameter, offsetLiteral, limitParameter, limitLiteral);
    }

    /** Whether the values are known without parameters. */
    public boolean isFixed() {
        return offsetParameter < 0 && limitParameter < 0;
    }

    /** OFFSET of this execution (0 when the parameter is not bound yet, as for a Describe). */
    public long offset(RouteParameters parameters) {
        if (offsetParameter < 0) {
            return offsetLiteral;
        }
        if (offsetParameter >= parameters.count()) {
            return 0;
        }
        Object value = parameters.value(offsetParameter);
        return value == null ? 0 : checked(count(value), "OFFSET");
    }

    /** LIMIT of this execution, empty for none. */
    public OptionalLong limit(RouteParameters parameters) {
        if (limitParameter < 0) {
            return limitLiteral < 0 ? OptionalLong.empty() : OptionalLong.of(limitLiteral);
        }
        if (limitParameter >= parameters.count()) {
            return OptionalLong.empty();
        }
        Object value = parameters.value(limitParameter);
        return value == null ? OptionalLong.empty() : OptionalLong.of(checked(count(value), "LIMIT"));
    }

    /** The literal value of a LIMIT or OFFSET constant. */
    static long literal(LiteralValue value) {
        return switch (value.kind()) {
            case INTEGER, DECIMAL, STRING -> count(value.value());
            case BOOLEAN -> throw new RouteException("42804", "argument of LIMIT must be type bigint, not type boolean");
        };
    }

    private static long checked(long value, String clause) {
        if (value < 0) {
            throw new RouteException(clause.equals("LIMIT") ? "2201W" : "2201X", clause + " must not be negative");
        }
        return value;
    }

    private static long count(Object value) {
        try {
            return switch (value) {
                case Long number -> number;
                case Integer number -> number;
                case Short number -> number;
                case Byte number -> number;
                case BigInteger number -> number.longValueExact();
                case BigDecimal number -> number.setScale(0, RoundingMode.HALF_UP).longValueExact();
                case Double number -> rounded(number);
                case Float number -> rounded(number);
                case String text -> count(new BigDecimal(text.strip()));
                default -> throw new RouteException("22023", "LIMIT or OFFSET value of type "
                        + value.getClass().getSimpleName() + " is not a row count");
            };
        } catch (ArithmeticException e) {
            throw new RouteException("22003", "bigint out of range");
        } catch (NumberFormatException e) {
            throw new RouteException("22P02", "invalid input syntax for type bigint: \"" + value + "\"");
        }
    }

    private static long rounded(double value) {
        double result = Math.rint(value);
        if (Double.isNaN(result) || result >= 0x1p63 || result < -0x1p63) {
            throw new ArithmeticException("out of range");
        }
        return (long) result;
    }

    /** The shards' row count {@code limit + offset}, saturated at {@code Long.MAX_VALUE}. */
    static long sum(long limit, long offset) {
        long result = limit + offset;
        return result < 0 ? Long.MAX_VALUE : result;
    }

    String describe() {
        return "offset=" + (offsetParameter >= 0 ? "$" + (offsetParameter + 1) : String.valueOf(offsetLiteral))
                + " limit=" + (limitParameter >= 0 ? "$" + (limitParameter + 1)
                : limitLiteral < 0 ? "none" : String.valueOf(limitLiteral));
    }
}
