package io.ashlar.sharding.algorithm;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * The date-time of a sharding value that is already a java.time value. Zoned values keep their
 * local date-time, as ShardingSphere does when it formats them with the pattern; an
 * {@link Instant} is seen in the JVM's default zone, as ShardingSphere does.
 */
final class TemporalValues {

    private TemporalValues() {
    }

    /** Whether {@link #toLocalDateTime} accepts the value. */
    static boolean isDateTime(Object value) {
        return value instanceof LocalDateTime || value instanceof LocalDate || value instanceof OffsetDateTime
                || value instanceof ZonedDateTime || value instanceof Instant;
    }

    /** The local date-time of a value accepted by {@link #isDateTime}. */
    static LocalDateTime toLocalDateTime(Object value) {
        if (value instanceof LocalDateTime result) {
            return result;
        }
        if (value instanceof LocalDate date) {
            return date.atStartOfDay();
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.toLocalDateTime();
        }
        if (value instanceof ZonedDateTime zoned) {
            return zoned.toLocalDateTime();
        }
        return LocalDateTime.ofInstant((Instant) value, ZoneId.systemDefault());
    }
}
