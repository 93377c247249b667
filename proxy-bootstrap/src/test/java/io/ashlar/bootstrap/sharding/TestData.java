package io.ashlar.bootstrap.sharding;

import io.ashlar.bootstrap.sharding.ShardingLayout.LogicalTable;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The rows every differential test starts from: a few hundred per table, pseudo-random from a fixed seed so that
 * every run (and every reader of a failure) sees the same data. Chosen to exercise the merge: NULLs in most columns,
 * many duplicates in sort and group keys, negative numbers, numerics whose values carry different scales
 * ({@code 7.000}, {@code 12.50}, {@code 3}), equal values written with different scales ({@code 7} and {@code 7.000}), floats that are exact binary fractions (so that a sum's last digit does
 * not depend on the order it is taken in), numeric NaN, and text in mixed case, non-ASCII, a character outside the BMP and an
 * empty string (so that a merge comparing UTF-16 code units instead of the database's byte order shows).
 *
 * <p>Sharding keys are never negative where the algorithm is MOD or INLINE {@code % 2}: ShardingSphere itself
 * cannot place such a row. HASH_MOD's t_user has two negative ids.
 */
final class TestData {

    private static final long SEED = 20_250_611L;

    private static final String[] NAMES = {"alice", "Alice", "ALICE", "bob", "Bob", "Émile", "émile", "Zoë", "zoe", "Ölaf",
        "Ångström", "李雷", "😀 smile", "ｚｅｄ", "_under", "o'brien", null};
    private static final String[] CITIES = {"Berlin", "berlin", "São Paulo", "Zürich", "Tokyo", "", null};
    private static final String[] STATUSES = {"NEW", "PAID", "PAID", "SHIPPED", "CANCELLED", "paid", null};
    private static final String[] DISCOUNTS = {"0.5", "1.25", "2.125", "0.1", "-0.75", "3", "100", "0.0001", "12.50", "7.000", null};
    private static final String[] AMOUNTS = {"10.00", "99.99", "-1.50", "0.00", "250.00"};
    private static final String[] NOTES = {"apple", "Apple", "APPLE", "banana", "Banana split", "ärger", "zebra", "Zebra", "ß",
        "😀", "ｚ", "", " leading space", "back\\slash", "it's", "a%b_c", null, null};
    private static final String[] LEVELS = {"INFO", "WARN", "ERROR", "debug", null};
    private static final String[] MESSAGES = {"started", "Started", "stopped", "disk 90% full", "ünïcødé", "", null};
    private static final String[] KINDS = {"a", "b", "c", "B"};
    private static final LocalDateTime[] POPULAR_TIMES = {LocalDateTime.of(2024, 2, 29, 12, 0), LocalDateTime.of(2024, 1, 1, 0, 0)};

    /** numeric NaN, rendered as the literal {@code 'NaN'}. */
    static final Object NAN = new Object() {
        @Override
        public String toString() {
            return "NaN";
        }
    };

    private final Map<String, List<List<Object>>> rows;

    private TestData(Map<String, List<List<Object>>> rows) {
        this.rows = rows;
    }

    /** The data set; the same on every call. */
    static TestData generate() {
        SplittableRandom random = new SplittableRandom(SEED);
        Map<String, List<List<Object>>> result = new LinkedHashMap<>();
        result.put("t_user", users(random));
        List<List<Object>> orders = orders(random);
        result.put("t_order", orders);
        result.put("t_order_item", items(random, orders));
        result.put("t_dict", List.of(
                List.of("NEW", "New order", 1),
                List.of("PAID", "Paid", 2),
                List.of("SHIPPED", "Shipped", 3),
                List.of("CANCELLED", "Cancelled", 4),
                List.of("RETURNED", "Returned", 5)));
        result.put("t_log", logs(random));
        result.put("t_event", events(random));
        result.put("t_single", singles(random));
        return new TestData(Collections.unmodifiableMap(result));
    }

    /** Rows of a logical table, values in the layout's column order; Java null for SQL NULL. */
    List<List<Object>> rows(String table) {
        return rows.getOrDefault(table, List.of());
    }

    /** The tables that have rows, in load order. */
    List<String> tables() {
        return List.copyOf(rows.keySet());
    }

    /** Multi-row INSERT statements for these rows of a table into {@code targetTable}, at most {@code perStatement} rows each. */
    static List<String> inserts(LogicalTable table, String targetTable, List<List<Object>> rows, int perStatement) {
        List<String> result = new ArrayList<>();
        String head = "INSERT INTO " + targetTable + " (" + String.join(", ", table.columnNames()) + ") VALUES ";
        StringBuilder statement = new StringBuilder();
        int inStatement = 0;
        for (List<Object> row : rows) {
            statement.append(inStatement == 0 ? head : ", ").append('(');
            for (int i = 0; i < row.size(); i++) {
                statement.append(i == 0 ? "" : ", ").append(literal(row.get(i)));
            }
            statement.append(')');
            if (++inStatement == perStatement) {
                result.add(statement.toString());
                statement.setLength(0);
                inStatement = 0;
            }
        }
        if (inStatement > 0) {
            result.add(statement.toString());
        }
        return result;
    }

    /** A row's values as text by column name, as getString would read them back (enough for placement). */
    static Map<String, String> byColumn(LogicalTable table, List<Object> row) {
        Map<String, String> result = new LinkedHashMap<>();
        List<String> names = table.columnNames();
        for (int i = 0; i < names.size(); i++) {
            Object value = row.get(i);
            result.put(names.get(i), value == null ? null : value.toString());
        }
        return result;
    }

    /** The SQL literal for a value. */
    static String literal(Object value) {
        return switch (value) {
            case null -> "NULL";
            case Integer i -> i.toString();
            case Long l -> l.toString();
            case BigDecimal d -> d.toPlainString();
            case Double d -> d.toString();
            case Float f -> f.toString();
            case LocalDate d -> "'" + d + "'";
            case LocalDateTime t -> "'" + t.toLocalDate() + " " + t.toLocalTime() + "'";
            case OffsetDateTime t -> "'" + t.toLocalDate() + " " + t.toLocalTime() + t.getOffset() + "'";
            case String s -> "'" + s.replace("'", "''") + "'";
            case Object o when o == NAN -> "'NaN'";
            default -> throw new IllegalArgumentException("no literal for " + value.getClass());
        };
    }

    private static List<List<Object>> users(SplittableRandom random) {
        List<List<Object>> result = new ArrayList<>();
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ids.add(i);
        }
        ids.add(-3);
        ids.add(-7);
        for (int id : ids) {
            result.add(row(id,
                    pick(random, NAMES),
                    pick(random, CITIES),
                    random.nextInt(10) == 0 ? null : random.nextInt(-50, 51),
                    random.nextInt(10) == 0 ? null : BigDecimal.valueOf(random.nextLong(-100_000, 1_000_000), 2),
                    random.nextInt(20) == 0 ? null : LocalDate.of(2020, 1, 1).plusDays(random.nextInt(1500))));
        }
        return result;
    }

    private static List<List<Object>> orders(SplittableRandom random) {
        List<List<Object>> result = new ArrayList<>();
        for (int i = 0; i < 305; i++) {
            long orderId = i < 300 ? 1000 + 7L * i : 3_000_000_000L + i;
            Object amount;
            int draw = random.nextInt(100);
            if (draw < 8) {
                amount = null;
            } else if (draw < 38) {
                amount = new BigDecimal(AMOUNTS[random.nextInt(AMOUNTS.length)]);
            } else {
                amount = BigDecimal.valueOf(random.nextLong(-50_000, 500_000), 2);
            }
            String discount = pick(random, DISCOUNTS);
            if (i % 3 == 0 && ("7.000".equals(discount) || "12.50".equals(discount))) {
                discount = discount.equals("7.000") ? "7" : "12.5";
            }
            LocalDateTime createdAt;
            int when = random.nextInt(20);
            if (when == 0) {
                createdAt = null;
            } else if (when < 4) {
                createdAt = POPULAR_TIMES[random.nextInt(POPULAR_TIMES.length)];
            } else {
                createdAt = LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(random.nextLong(365L * 24 * 3600));
            }
            result.add(row(orderId,
                    random.nextInt(45),
                    pick(random, STATUSES),
                    amount,
                    discount == null ? null : new BigDecimal(discount),
                    random.nextInt(10) == 0 ? null : random.nextInt(-400, 4000) / 4.0,
                    random.nextInt(10) == 0 ? null : random.nextInt(-80, 800) / 8.0f,
                    pick(random, NOTES),
                    createdAt));
        }
        return result;
    }

    private static List<List<Object>> items(SplittableRandom random, List<List<Object>> orders) {
        List<List<Object>> result = new ArrayList<>();
        for (List<Object> order : orders) {
            long orderId = (Long) order.get(0);
            int count = random.nextInt(4);
            for (int k = 0; k < count; k++) {
                result.add(row(orderId * 10 + k,
                        orderId,
                        order.get(1),
                        random.nextInt(20) == 0 ? null : random.nextInt(1, 26),
                        random.nextInt(-2, 13),
                        random.nextInt(20) == 0 ? null : BigDecimal.valueOf(random.nextLong(0, 100_000), 3)));
            }
        }
        return result;
    }

    private static List<List<Object>> logs(SplittableRandom random) {
        List<List<Object>> result = new ArrayList<>();
        for (int i = 1; i <= 200; i++) {
            result.add(row((long) i,
                    random.nextInt(10) == 0 ? null : random.nextInt(45),
                    pick(random, LEVELS),
                    pick(random, MESSAGES),
                    cost(random),
                    OffsetDateTime.of(2024, 3, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusMinutes(random.nextInt(100_000))));
        }
        return result;
    }

    /** numeric(8,4), NULL one time in ten, NaN (which PostgreSQL sorts above every number) one time in forty. */
    private static Object cost(SplittableRandom random) {
        int draw = random.nextInt(40);
        if (draw < 4) {
            return null;
        }
        return draw == 4 ? NAN : BigDecimal.valueOf(random.nextLong(-99_999, 1_000_000), 4);
    }

    private static List<List<Object>> events(SplittableRandom random) {
        List<List<Object>> result = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            result.add(row(i, KINDS[random.nextInt(KINDS.length)], random.nextInt(-5, 21)));
        }
        return result;
    }

    private static List<List<Object>> singles(SplittableRandom random) {
        List<List<Object>> result = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            result.add(row(i, pick(random, NAMES), random.nextInt(8) == 0 ? null : BigDecimal.valueOf(random.nextLong(-10_000, 100_000), 2)));
        }
        return result;
    }

    private static String pick(SplittableRandom random, String[] values) {
        return values[random.nextInt(values.length)];
    }

    private static List<Object> row(Object... values) {
        return Collections.unmodifiableList(Arrays.asList(values));
    }
}
