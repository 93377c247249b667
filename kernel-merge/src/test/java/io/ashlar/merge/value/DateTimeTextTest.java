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
}
