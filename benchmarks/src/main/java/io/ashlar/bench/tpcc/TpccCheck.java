package io.ashlar.bench.tpcc;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * TPC-C's consistency conditions 1 to 4 (clause 3.3.2.1 - 3.3.2.4), checked on the whole
 * database:
 * <ol>
 *   <li>W_YTD = sum(D_YTD) of its districts, for each warehouse;</li>
 *   <li>D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) of the district, for each district (the NEW_ORDER
 *       part only where the district has undelivered orders);</li>
 *   <li>max(NO_O_ID) - min(NO_O_ID) + 1 = the number of NEW_ORDER rows, for each district;</li>
 *   <li>sum(O_OL_CNT) = the number of ORDER_LINE rows, for each district.</li>
 * </ol>
 * Each table is read with one single-table aggregate grouped by warehouse (and district), and the
 * comparisons are made here, so that the queries run the same through a sharding proxy (each shard
 * groups its rows, the proxy merges the groups) as on one PostgreSQL server.
 */
final class TpccCheck {

    /**
     * The outcome.
     *
     * @param failures one line per violated condition and district or warehouse, empty when consistent
     * @param warehouses warehouses checked
     * @param districts  districts checked
     */
    record Result(List<String> failures, int warehouses, int districts) {
        boolean consistent() {
            return failures.isEmpty() && warehouses > 0;
        }
    }

    private static final int MAX_REPORTED = 20;

    private TpccCheck() {
    }

    static Result check(Connection connection) throws SQLException {
        List<String> failures = new ArrayList<>();
        Map<Integer, BigDecimal> warehouseYtd = new TreeMap<>();
        Map<Integer, BigDecimal> districtYtd = new HashMap<>();
        Map<Integer, Integer> nextOrder = new TreeMap<>();
        Map<Integer, long[]> orders = new HashMap<>();
        Map<Integer, long[]> newOrders = new HashMap<>();
        Map<Integer, Long> orderLines = new HashMap<>();
        try (Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery("SELECT w_id, w_ytd FROM bmsql_warehouse")) {
                while (rs.next()) {
                    warehouseYtd.put(rs.getInt(1), rs.getBigDecimal(2));
                }
            }
            try (ResultSet rs = statement.executeQuery("SELECT d_w_id, sum(d_ytd) FROM bmsql_district GROUP BY d_w_id")) {
                while (rs.next()) {
                    districtYtd.put(rs.getInt(1), rs.getBigDecimal(2));
                }
            }
            try (ResultSet rs = statement.executeQuery("SELECT d_w_id, d_id, d_next_o_id FROM bmsql_district")) {
                while (rs.next()) {
                    nextOrder.put(key(rs.getInt(1), rs.getInt(2)), rs.getInt(3));
                }
            }
            try (ResultSet rs = statement.executeQuery(
                    "SELECT o_w_id, o_d_id, max(o_id), sum(o_ol_cnt) FROM bmsql_oorder GROUP BY o_w_id, o_d_id")) {
                while (rs.next()) {
                    orders.put(key(rs.getInt(1), rs.getInt(2)), new long[] {rs.getLong(3), rs.getLong(4)});
                }
            }
            try (ResultSet rs = statement.executeQuery("SELECT no_w_id, no_d_id, max(no_o_id), min(no_o_id), count(*)"
                    + " FROM bmsql_new_order GROUP BY no_w_id, no_d_id")) {
                while (rs.next()) {
                    newOrders.put(key(rs.getInt(1), rs.getInt(2)), new long[] {rs.getLong(3), rs.getLong(4), rs.getLong(5)});
                }
            }
            try (ResultSet rs = statement.executeQuery(
                    "SELECT ol_w_id, ol_d_id, count(*) FROM bmsql_order_line GROUP BY ol_w_id, ol_d_id")) {
                while (rs.next()) {
                    orderLines.put(key(rs.getInt(1), rs.getInt(2)), rs.getLong(3));
                }
            }
        } finally {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
        }

        for (Map.Entry<Integer, BigDecimal> each : warehouseYtd.entrySet()) {
            BigDecimal sum = districtYtd.get(each.getKey());
            if (sum == null || each.getValue() == null || each.getValue().compareTo(sum) != 0) {
                failures.add("condition 1: warehouse " + each.getKey() + ": w_ytd " + each.getValue() + " != sum(d_ytd) " + sum);
            }
        }
        for (Map.Entry<Integer, Integer> each : nextOrder.entrySet()) {
            String where = "district " + each.getKey() / 100 + "/" + each.getKey() % 100;
            long last = each.getValue() - 1L;
            long[] order = orders.get(each.getKey());
            long[] newOrder = newOrders.get(each.getKey());
            if (order == null || order[0] != last) {
                failures.add("condition 2: " + where + ": d_next_o_id - 1 = " + last + " != max(o_id) "
                        + (order == null ? "(no orders)" : order[0]));
            }
            if (newOrder != null && newOrder[0] != last) {
                failures.add("condition 2: " + where + ": d_next_o_id - 1 = " + last + " != max(no_o_id) " + newOrder[0]);
            }
            if (newOrder != null && newOrder[0] - newOrder[1] + 1 != newOrder[2]) {
                failures.add("condition 3: " + where + ": max(no_o_id) - min(no_o_id) + 1 = "
                        + (newOrder[0] - newOrder[1] + 1) + " != count " + newOrder[2]);
            }
            Long lines = orderLines.get(each.getKey());
            if (order == null || lines == null || order[1] != lines) {
                failures.add("condition 4: " + where + ": sum(o_ol_cnt) " + (order == null ? null : order[1])
                        + " != order lines " + lines);
            }
        }
        if (warehouseYtd.isEmpty()) {
            failures.add("no warehouses: the database is empty");
        }
        return new Result(List.copyOf(failures), warehouseYtd.size(), nextOrder.size());
    }

    /** Prints the outcome; true when consistent. */
    static boolean print(Result result, PrintStream out) {
        for (int i = 0; i < Math.min(MAX_REPORTED, result.failures().size()); i++) {
            out.println("CHECK FAILED " + result.failures().get(i));
        }
        if (result.failures().size() > MAX_REPORTED) {
            out.println("... and " + (result.failures().size() - MAX_REPORTED) + " more");
        }
        out.println("Consistency conditions 1-4 on " + result.warehouses() + " warehouse(s), " + result.districts()
                + " district(s): " + (result.consistent() ? "OK" : result.failures().size() + " violation(s)"));
        return result.consistent();
    }

    private static int key(int warehouse, int district) {
        return warehouse * 100 + district;
    }
}
