package io.ashlar.sharding.algorithm;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;
import java.time.Year;
import java.time.YearMonth;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.Temporal;
import java.time.temporal.TemporalAccessor;

/**
 * What an INTERVAL {@code datetime-pattern} describes, decided from the parsed
 * {@code datetime-lower} exactly as ShardingSphere's {@code IntervalShardingAlgorithm} picks its
 * {@code TemporalParser}: a date-time, a date, a year-month, a year, a month or a time of day.
 * Values of each kind are mapped to a {@link LocalDateTime} key that orders them.
 */
enum IntervalKind {

    DATE_TIME, DATE, YEAR_MONTH, YEAR, MONTH, TIME;

    private static final LocalDate KEY_DATE = LocalDate.of(2000, 1, 1);

    static IntervalKind of(TemporalAccessor parsed) {
        if (!parsed.isSupported(ChronoField.NANO_OF_DAY)) {
            if (parsed.isSupported(ChronoField.EPOCH_DAY)) {
                return DATE;
            }
            if (parsed.isSupported(ChronoField.YEAR) && parsed.isSupported(ChronoField.MONTH_OF_YEAR)) {
                return YEAR_MONTH;
            }
            if (parsed.isSupported(ChronoField.YEAR)) {
                return YEAR;
            }
            if (parsed.isSupported(ChronoField.MONTH_OF_YEAR)) {
                return MONTH;
            }
        }
        return parsed.isSupported(ChronoField.EPOCH_DAY) ? DATE_TIME : TIME;
    }

    /**
     * The value of this kind held by a temporal.
     *
     * @throws java.time.DateTimeException if the temporal lacks the fields
     */
    TemporalAccessor from(TemporalAccessor temporal) {
        return switch (this) {
            case DATE_TIME -> temporal instanceof LocalDate date ? date.atStartOfDay() : LocalDateTime.from(temporal);
            case DATE -> LocalDate.from(temporal);
            case YEAR_MONTH -> YearMonth.from(temporal);
            case YEAR -> Year.from(temporal);
            case MONTH -> Month.from(temporal);
            case TIME -> LocalTime.from(temporal);
        };
    }

    /** Whether stepping by the unit is possible (ShardingSphere steps a month kind by months whatever the unit). */
    boolean supports(TemporalAccessor sample, ChronoUnit unit) {
        return this == MONTH || ((Temporal) sample).isSupported(unit);
    }

    TemporalAccessor plus(TemporalAccessor value, long amount, ChronoUnit unit) {
        return this == MONTH ? ((Month) value).plus(amount) : ((Temporal) value).plus(amount, unit);
    }

    /**
     * Whether stepping has passed the upper bound; ShardingSphere's month kind also stops when
     * the next step would pass December.
     */
    boolean isAfter(TemporalAccessor value, TemporalAccessor upper, int stepAmount) {
        if (this == MONTH) {
            return ((Month) value).getValue() > ((Month) upper).getValue() || ((Month) value).getValue() + stepAmount > Month.DECEMBER.getValue();
        }
        return key(value).isAfter(key(upper));
    }

    /** A date-time that orders values of this kind. */
    LocalDateTime key(TemporalAccessor value) {
        return switch (this) {
            case DATE_TIME -> (LocalDateTime) value;
            case DATE -> ((LocalDate) value).atStartOfDay();
            case YEAR_MONTH -> ((YearMonth) value).atDay(1).atStartOfDay();
            case YEAR -> ((Year) value).atDay(1).atStartOfDay();
            case MONTH -> KEY_DATE.withMonth(((Month) value).getValue()).atStartOfDay();
            case TIME -> KEY_DATE.atTime((LocalTime) value);
        };
    }

    /** A key after every key of this kind's day, for a time-of-day interval that wraps at midnight. */
    static LocalDateTime endOfTimeKeys() {
        return KEY_DATE.plusDays(1).atStartOfDay();
    }

    /** Truncates a date-time or time value to the precision the pattern keeps. */
    TemporalAccessor truncate(TemporalAccessor value, ChronoUnit precision) {
        if (precision == ChronoUnit.NANOS) {
            return value;
        }
        return switch (this) {
            case DATE_TIME -> ((LocalDateTime) value).truncatedTo(precision);
            case TIME -> ((LocalTime) value).truncatedTo(precision);
            default -> value;
        };
    }

    String describe() {
        return switch (this) {
            case DATE_TIME -> "a date-time";
            case DATE -> "a date";
            case YEAR_MONTH -> "a year-month";
            case YEAR -> "a year";
            case MONTH -> "a month";
            case TIME -> "a time of day";
        };
    }
}
