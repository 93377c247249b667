package io.ashlar.merge.value;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DateTimeTextTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static int compare(int typeOid, String a, String b) {
        return Integer.signum(ValueOrdering.of(typeOid).compare(bytes(a), bytes(b)));
    }

    @Test
    void datesCountDaysLikeTheProlepticCalendar() {
        for (String each : new String[] {"1970-01-01", "2000-02-29", "1900-03-01", "0001-01-01", "9999-12-31"}) {
            assertEquals(LocalDate.parse(each).toEpochDay(), DateTimeText.parseDate(bytes(each)), each);
        }
        // 1 BC is astronomical year 0, 44 BC is year -43
        assertEquals(LocalDate.of(0, 12, 31).toEpochDay(), DateTimeText.parseDate(bytes("0001-12-31 BC")));
        assertEquals(LocalDate.of(-43, 3, 15).toEpochDay(), DateTimeText.parseDate(bytes("0044-03-15 BC")));
        assertEquals(LocalDate.of(10000, 1, 1).toEpochDay(), DateTimeText.parseDate(bytes("10000-01-01")));
    }

    @Test
    void datesOrderWithBcAndInfinity() {
        assertEquals(-1, compare(TypeOids.DATE, "0044-03-15 BC", "0001-01-01"));
        assertEquals(-1, compare(TypeOids.DATE, "0100-01-01 BC", "0044-03-15 BC"));
        assertEquals(1, compare(TypeOids.DATE, "10000-01-01", "9999-12-31"));
        assertEquals(1, compare(TypeOids.DATE, "infinity", "5874897-12-31"));
        assertEquals(-1, compare(TypeOids.DATE, "-infinity", "4713-11-24 BC"));
        assertEquals(0, compare(TypeOids.DATE, "infinity", "infinity"));
    }

    @Test
    void timestampsOrderWithFractionsBcAndInfinity() {
        assertEquals(LocalDateTime.parse("2024-01-15T12:34:56.789").toEpochSecond(ZoneOffset.UTC) * 1_000_000 + 789_000,
                DateTimeText.parseTimestamp(bytes("2024-01-15 12:34:56.789")));
        assertEquals(-1, compare(TypeOids.TIMESTAMP, "2024-01-15 12:34:56", "2024-01-15 12:34:56.000001"));
        assertEquals(-1, compare(TypeOids.TIMESTAMP, "2024-01-15 12:34:56.25", "2024-01-15 12:34:56.5"));
        assertEquals(-1, compare(TypeOids.TIMESTAMP, "0001-01-01 00:00:00 BC", "0001-01-01 00:00:00"));
        assertEquals(1, compare(TypeOids.TIMESTAMP, "0001-01-01 00:00:00 BC", "0002-12-31 23:59:59 BC"));
        assertEquals(1, compare(TypeOids.TIMESTAMP, "infinity", "294276-12-31 23:59:59.999999"));
        assertEquals(-1, compare(TypeOids.TIMESTAMP, "-infinity", "4713-11-24 00:00:00 BC"));
    }

    @Test
    void timestamptzComparesTheInstantAcrossOffsets() {
        assertEquals(0, compare(TypeOids.TIMESTAMPTZ, "2024-01-15 12:00:00+00", "2024-01-15 13:00:00+01"));
        assertEquals(0, compare(TypeOids.TIMESTAMPTZ, "2024-01-15 12:00:00+00", "2024-01-15 06:30:00-05:30"));
        assertEquals(-1, compare(TypeOids.TIMESTAMPTZ, "2024-01-15 13:00:00+02", "2024-01-15 12:00:00+00"));
        assertEquals(0, compare(TypeOids.TIMESTAMPTZ, "1900-01-01 00:00:00+00:53:28", "1899-12-31 23:06:32+00"));
        assertEquals(-1, compare(TypeOids.TIMESTAMPTZ, "0010-01-01 00:00:00+00 BC", "0010-01-01 00:00:00+00"));
        assertTrue(ValueOrdering.of(TypeOids.TIMESTAMPTZ).equal(bytes("2024-01-15 12:00:00+00"), bytes("2024-01-15 13:00:00+01")));
    }

    @Test
    void timesAndTimesWithZone() {
        assertEquals(-1, compare(TypeOids.TIME, "09:00:00", "10:00:00"));
        assertEquals(1, compare(TypeOids.TIME, "24:00:00", "23:59:59.999999"));
        // timetz: by UTC time first, then the zone breaks the tie (timetz_cmp_internal)
        assertEquals(-1, compare(TypeOids.TIMETZ, "12:00:00+01", "12:00:00+00"));
        // same instant: the zone (seconds west of UTC, -3600 for +01) breaks the tie
        assertEquals(-1, compare(TypeOids.TIMETZ, "12:00:00+01", "11:00:00+00"));
        assertEquals(1, compare(TypeOids.TIMETZ, "13:00:00+00", "13:30:00+01"));
        assertEquals(0, compare(TypeOids.TIMETZ, "12:00:00+01", "12:00:00+01"));
    }

    @Test
    void intervalsCompareTheirSpanWithThirtyDayMonths() {
        assertEquals(0, compare(TypeOids.INTERVAL, "1 mon", "30 days"));
        assertEquals(0, compare(TypeOids.INTERVAL, "1 day", "24:00:00"));
        assertEquals(0, compare(TypeOids.INTERVAL, "1 year", "360 days"));
        assertEquals(1, compare(TypeOids.INTERVAL, "1 year 2 mons 3 days 04:05:06.789", "1 year 2 mons 3 days 04:05:06.788"));
        assertEquals(-1, compare(TypeOids.INTERVAL, "-1 days +02:00:00", "00:00:00"));
        assertEquals(1, compare(TypeOids.INTERVAL, "-1 days +25:00:00", "00:00:00"));
        assertEquals(-1, compare(TypeOids.INTERVAL, "-00:00:01", "00:00:00"));
        assertEquals(1, compare(TypeOids.INTERVAL, "178956970 years 7 mons", "-178956970 years -8 mons"));
        assertEquals(1, compare(TypeOids.INTERVAL, "178956970 years 7 mons", "178956970 years 6 mons 29 days"));
        assertEquals(1, compare(TypeOids.INTERVAL, "infinity", "178956970 years 7 mons"));
        assertEquals(-1, compare(TypeOids.INTERVAL, "-infinity", "-178956970 years -8 mons"));
    }

    @Test
    void refusesNonIsoText() {
        assertThrows(IllegalArgumentException.class, () -> DateTimeText.parseDate(bytes("01/15/2024")));
        assertThrows(IllegalArgumentException.class, () -> IntervalText.parseSpan(bytes("P1Y2M"), new long[2], 0));
    }

    /** PostgreSQL's binary format counts from 2000-01-01, with its own infinities (DT_NOEND, DT_NOBEGIN). */
    @Test
    void fromPostgresqlsEpochAsItsBinaryFormatCounts() {
        byte[] date = bytes("x2000-01-01x");
        assertEquals(0, DateTimeText.postgresDays(date, 1, date.length - 1, "date"));
        assertEquals(-DateTimeText.POSTGRES_EPOCH_DAYS, DateTimeText.postgresDays(bytes("1970-01-01"), 0, 10, "date"));
        assertEquals(LocalDate.of(-43, 3, 15).toEpochDay() - DateTimeText.POSTGRES_EPOCH_DAYS,
                DateTimeText.postgresDays(bytes("0044-03-15 BC"), 0, 13, "date"));
        assertEquals(Long.MAX_VALUE, DateTimeText.postgresDays(bytes("infinity"), 0, 8, "date"));
        assertEquals(Long.MIN_VALUE, DateTimeText.postgresMicros(bytes("-infinity"), 0, 9, false, "timestamp"));
        // The last timestamp PostgreSQL has (END_TIMESTAMP - 1) fits its epoch's count, not 1970's.
        assertEquals(9_223_371_331_199_999_999L,
                DateTimeText.postgresMicros(bytes("294276-12-31 23:59:59.999999"), 0, 28, false, "timestamp"));
        assertEquals(5 * 3_600_000_000L + 30 * 60_000_000L,
                -DateTimeText.postgresMicros(bytes("2000-01-01 00:00:00+05:30"), 0, 25, true, "timestamptz"));
        // Intervals print hundreds of hours; a time prints 24:00:00.
        assertEquals(838L * 3_600_000_000L + 59 * 60_000_000L + 59_500_000L,
                DateTimeText.parseClock(bytes("838:59:59.5"), 0, 11, "interval"));
        assertEquals(24 * 3_600_000_000L, DateTimeText.parseTime(bytes("24:00:00")));
    }

    @Test
    void textNoOutputFunctionPrintsFailsAsPostgresqlWordsIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DateTimeText.parseDate(bytes("01/15/2024")));
        assertEquals("invalid text for type date: \"01/15/2024\"", e.getMessage());
        for (String text : new String[] {"12:34", "12:34:56.1234567", "12:34:56x"}) {
            assertThrows(IllegalArgumentException.class, () -> DateTimeText.parseTime(bytes(text)), text);
        }
        assertThrows(IllegalArgumentException.class, () -> DateTimeText.parseTimestampTz(bytes("2024-01-31 12:34:56")));
        assertThrows(IllegalArgumentException.class, () -> DateTimeText.parseTimestamp(bytes("2024-01-31T12:34:56")));
        assertThrows(IllegalArgumentException.class, () -> DateTimeText.parseDate(bytes("infinityx")));
    }
}
