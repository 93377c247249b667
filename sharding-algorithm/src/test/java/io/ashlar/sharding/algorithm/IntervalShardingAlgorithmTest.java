package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The configurations and expected counts of ShardingSphere's {@code IntervalShardingAlgorithmTest}. */
class IntervalShardingAlgorithmTest {

    private static IntervalShardingAlgorithm algorithm(String pattern, String lower, String upper, String suffix, int amount, String unit) {
        Map<String, String> props = new HashMap<>(Map.of("datetime-pattern", pattern, "datetime-lower", lower, "datetime-upper", upper, "sharding-suffix-pattern", suffix,
                "datetime-interval-amount", String.valueOf(amount)));
        if (unit != null) {
            props.put("datetime-interval-unit", unit);
        }
        return new IntervalShardingAlgorithm(props);
    }

    private static List<String> monthTables() {
        List<String> result = new ArrayList<>();
        for (int year = 2016; year <= 2020; year++) {
            for (int month = 1; month <= 12; month++) {
                result.add("t_order_" + year + (month < 10 ? "0" : "") + month);
            }
        }
        return result;
    }

    private static List<String> quarterTables() {
        List<String> result = new ArrayList<>();
        for (int year = 2016; year <= 2020; year++) {
            for (int quarter = 1; quarter <= 4; quarter++) {
                result.add("t_order_" + year + "0" + quarter);
            }
        }
        return result;
    }

    private static List<String> everyOtherDayTables() {
        List<String> result = new ArrayList<>();
        for (int day = 1; day <= 29; day += 2) {
            result.add("t_order_202106" + (day < 10 ? "0" : "") + day);
        }
        for (int day = 1; day <= 31; day += 2) {
            result.add("t_order_202107" + (day < 10 ? "0" : "") + day);
        }
        return result;
    }

    private final IntervalShardingAlgorithm byMonth = algorithm("yyyy-MM-dd HH:mm:ss", "2016-01-01 00:00:00", "2021-12-31 00:00:00", "yyyyMM", 1, "Months");

    private final IntervalShardingAlgorithm byQuarter = algorithm("yyyy-MM-dd HH:mm:ss", "2016-01-01 00:00:00", "2021-12-31 00:00:00", "yyyyQQ", 3, "Months");

    private final IntervalShardingAlgorithm byTwoDays = algorithm("yyyy-MM-dd HH:mm:ss", "2021-06-01 00:00:00", "2021-07-31 00:00:00", "yyyyMMdd", 2, null);

    @Test
    void precise() {
        assertEquals(Optional.of("t_order_202001"), byQuarter.doSharding(quarterTables(), "create_time", "2020-01-01 00:00:01"));
        assertEquals(Optional.of("t_order_202001"), byQuarter.doSharding(quarterTables(), "create_time", "2020-02-01 00:00:01"));
        assertEquals(Optional.of("t_order_202001"), byMonth.doSharding(monthTables(), "create_time", "2020-01-01 00:00:01"));
        assertEquals(Optional.of("t_order_202003"), byMonth.doSharding(monthTables(), "create_time", LocalDateTime.of(2020, 3, 15, 10, 0)));
        assertEquals(Optional.empty(), byMonth.doSharding(monthTables(), "create_time", "2030-01-01 00:00:01"));
        assertEquals(Optional.empty(), byMonth.doSharding(monthTables(), "create_time", "2015-12-31 23:59:59"));
        assertEquals(Optional.of("t_order_20210701"), byTwoDays.doSharding(everyOtherDayTables(), "create_time", "2021-07-01 00:00:01"));
        assertEquals(Optional.of("t_order_20210701"), byTwoDays.doSharding(everyOtherDayTables(), "create_time", "2021-07-02 23:59:59"));
    }

    @Test
    void ranges() {
        assertEquals(3, byQuarter.doSharding(quarterTables(), "create_time", ShardingRange.closed("2019-10-15 10:59:08", "2020-04-08 10:59:08")).size());
        assertEquals(9, byQuarter.doSharding(quarterTables(), "create_time", ShardingRange.atLeast("2018-10-15 10:59:08")).size());
        assertEquals(15, byQuarter.doSharding(quarterTables(), "create_time", ShardingRange.atMost("2019-09-01 00:00:00")).size());
        assertEquals(31, byTwoDays.doSharding(everyOtherDayTables(), "create_time", ShardingRange.atLeast("2021-01-01 00:00:00")).size());
        assertEquals(31, byTwoDays.doSharding(everyOtherDayTables(), "create_time", ShardingRange.atMost("2021-07-31 01:00:00")).size());
        assertEquals(7, byMonth.doSharding(monthTables(), "create_time", ShardingRange.closed("2019-10-15 10:59:08", "2020-04-08 10:59:08")).size());
    }

    @Test
    void rangeEndsAtAnIntervalStartHonourInclusiveness() {
        assertEquals(List.of("t_order_202001", "t_order_202002"),
                byMonth.doSharding(monthTables(), "create_time", ShardingRange.closed("2020-01-15 00:00:00", "2020-02-01 00:00:00")));
        assertEquals(List.of("t_order_202001"), byMonth.doSharding(monthTables(), "create_time", ShardingRange.closedOpen("2020-01-15 00:00:00", "2020-02-01 00:00:00")));
        assertEquals(List.of("t_order_202002"), byMonth.doSharding(monthTables(), "create_time", ShardingRange.open("2020-02-01 00:00:00", "2020-02-10 00:00:00")));
        assertEquals(List.of(), byMonth.doSharding(monthTables(), "create_time", ShardingRange.closed("2020-03-01 00:00:00", "2020-02-01 00:00:00")));
    }

    @Test
    void everyDateTimeValueType() {
        IntervalShardingAlgorithm millis = algorithm("yyyy-MM-dd HH:mm:ss.SSS", "2021-06-01 00:00:00.000", "2021-07-31 00:00:00.000", "yyyyMMdd", 2, "DAYS");
        LocalDateTime lower = LocalDateTime.of(2021, 6, 15, 2, 25, 27);
        LocalDateTime upper = LocalDateTime.of(2021, 7, 31, 2, 25, 27);
        ZoneOffset offset = OffsetDateTime.now().getOffset();
        List<ShardingRange> ranges = List.of(ShardingRange.closed(lower, upper),
                ShardingRange.closed(lower.atZone(ZoneId.systemDefault()).toInstant(), upper.atZone(ZoneId.systemDefault()).toInstant()),
                ShardingRange.closed(OffsetDateTime.of(lower, offset), OffsetDateTime.of(upper, offset)),
                ShardingRange.closed(ZonedDateTime.of(lower, ZoneId.systemDefault()), ZonedDateTime.of(upper, ZoneId.systemDefault())),
                ShardingRange.closed("2021-06-15 02:25:27", "2021-07-31 02:25:27"));
        for (ShardingRange each : ranges) {
            assertEquals(24, millis.doSharding(everyOtherDayTables(), "create_time", each).size(), each::toString);
        }
        assertEquals(24, byTwoDays.doSharding(everyOtherDayTables(), "create_time", ShardingRange.closed("2021-06-15 02:25:27", "2021-07-31 02:25:27")).size());
        IntervalShardingAlgorithm dates = algorithm("yyyy-MM-dd", "2021-06-01", "2021-07-31", "yyyyMMdd", 2, null);
        assertEquals(24, dates.doSharding(everyOtherDayTables(), "create_time", ShardingRange.closed(LocalDate.of(2021, 6, 15), LocalDate.of(2021, 7, 31))).size());
        assertEquals(Optional.of("t_order_20210615"), dates.doSharding(everyOtherDayTables(), "create_time", Instant.parse("2021-06-16T12:00:00Z")));
    }

    @Test
    void timeOfDay() {
        IntervalShardingAlgorithm hours = algorithm("HH:mm:ss.SSS", "02:00:00.000", "13:00:00.000", "HHmm", 2, "Hours");
        List<String> tables = new ArrayList<>();
        for (int hour = 2; hour < 13; hour++) {
            tables.add("t_order_" + (hour < 10 ? "0" : "") + hour + "00");
        }
        assertEquals(6, hours.doSharding(tables, "create_time", ShardingRange.closed(LocalTime.of(2, 25, 27), LocalTime.of(12, 25, 27))).size());
        ZoneOffset offset = OffsetDateTime.now().getOffset();
        assertEquals(6, hours.doSharding(tables, "create_time", ShardingRange.closed(OffsetTime.of(2, 25, 27, 0, offset), OffsetTime.of(12, 25, 27, 0, offset))).size());
        assertEquals(Optional.of("t_order_0400"), hours.doSharding(tables, "create_time", LocalTime.of(5, 59)));
    }

    @Test
    void yearsMonthsAndYearMonths() {
        List<String> years = new ArrayList<>();
        for (int year = 2000; year < 2023; year++) {
            years.add("t_order_" + year);
        }
        assertEquals(7, algorithm("yyyy", "2000", "2022", "yyyy", 2, "Years").doSharding(years, "y", ShardingRange.closed(Year.of(2001), Year.of(2013))).size());
        List<String> yearMonths = new ArrayList<>(monthTables());
        for (int month = 1; month <= 12; month++) {
            yearMonths.add("t_order_2021" + (month < 10 ? "0" : "") + month);
        }
        assertEquals(3, algorithm("yyyy-MM", "2016-01", "2021-12", "yyyyMM", 2, "Years")
                .doSharding(yearMonths, "ym", ShardingRange.closed(YearMonth.of(2016, 1), YearMonth.of(2020, 1))).size());
        IntervalShardingAlgorithm months = algorithm("MM", "02", "12", "MM", 2, "Months");
        List<String> monthTables = new ArrayList<>();
        for (int month = 2; month < 13; month++) {
            monthTables.add("t_order_" + (month < 10 ? "0" : "") + month);
        }
        assertEquals(4, months.doSharding(monthTables, "m", ShardingRange.closed(Month.of(4), Month.of(10))).size());
        assertEquals(4, months.doSharding(monthTables, "m", ShardingRange.closed("04", "10")).size());
        // ShardingSphere's month stepping stops before a step would pass December
        assertEquals(List.of("02", "04", "06", "08", "10"), months.suffixes());
    }

    @Test
    void monthStepsFromTheEndOfAMonthStayClamped() {
        IntervalShardingAlgorithm fromJan31 = algorithm("yyyy-MM-dd", "2021-01-31", "2021-05-31", "yyyyMMdd", 1, "MONTHS");
        assertEquals(List.of("20210131", "20210228", "20210328", "20210428", "20210528"), fromJan31.suffixes());
    }

    @Test
    void shorterTextIsParsedWithThePrefixOfThePattern() {
        IntervalShardingAlgorithm dates = algorithm("yyyy-MM-dd HH:mm:ss", "2021-06-01 00:00:00", "2021-07-31 00:00:00", "yyyyMM", 1, "MONTHS");
        assertEquals(Optional.of("t_202106"), dates.doSharding(List.of("t_202106", "t_202107"), "c", "2021-06-15 10:20:30.123456"));
        assertEquals("INTERVAL sharding algorithm cannot use value '2021-06-15' (java.lang.String) of column 'c': expected a date-time formatted yyyy-MM-dd HH:mm:ss",
                assertThrows(ShardingAlgorithmException.class, () -> dates.doSharding(List.of("t_202106"), "c", "2021-06-15")).getMessage());
    }

    @Test
    void propertyErrors() {
        assertEquals("INTERVAL sharding algorithm: property 'datetime-lower' is 'invalid'; expected a date-time formatted yyyy",
                assertThrows(ShardingAlgorithmException.class, () -> new IntervalShardingAlgorithm(Map.of("datetime-pattern", "yyyy", "datetime-lower", "invalid"))).getMessage());
        assertEquals("INTERVAL sharding algorithm: property 'datetime-interval-unit' is 'invalid'; expected a java.time.temporal.ChronoUnit such as SECONDS, MINUTES, HOURS, DAYS,"
                + " WEEKS, MONTHS or YEARS", assertThrows(ShardingAlgorithmException.class, () -> new IntervalShardingAlgorithm(Map.of("datetime-pattern", "yy", "datetime-lower", "16",
                        "datetime-upper", "20", "sharding-suffix-pattern", "yy", "datetime-interval-unit", "invalid"))).getMessage());
        assertEquals("INTERVAL sharding algorithm: property 'datetime-interval-unit' is 'DAYS'; expected a unit that a year-month (datetime-pattern 'yyyy-MM') can step by",
                assertThrows(ShardingAlgorithmException.class, () -> algorithm("yyyy-MM", "2016-01", "2021-12", "yyyyMM", 1, "Days")).getMessage());
        assertEquals("INTERVAL sharding algorithm: property 'sharding-suffix-pattern' is missing; expected a date-time pattern such as yyyyMM",
                assertThrows(ShardingAlgorithmException.class, () -> new IntervalShardingAlgorithm(Map.of("datetime-pattern", "yyyy", "datetime-lower", "2000"))).getMessage());
        assertEquals("INTERVAL sharding algorithm: property 'datetime-pattern' is missing; expected a date-time pattern such as yyyy-MM-dd HH:mm:ss",
                assertThrows(ShardingAlgorithmException.class, () -> new IntervalShardingAlgorithm(Map.of())).getMessage());
        assertEquals("INTERVAL sharding algorithm: property 'datetime-interval-amount' is '0'; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class, () -> algorithm("yyyy", "2000", "2022", "yyyy", 0, "Years")).getMessage());
        ShardingAlgorithmException suffix = assertThrows(ShardingAlgorithmException.class, () -> algorithm("yyyy-MM", "2016-01", "2021-12", "yyyyMMdd", 1, "Months"));
        assertEquals(true, suffix.getMessage().startsWith("INTERVAL sharding algorithm: property 'sharding-suffix-pattern' is 'yyyyMMdd'; expected a pattern of fields that a year-month has"),
                suffix.getMessage());
    }
}
