package io.ashlar.bench.tpcc;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Loads the initial database (TPC-C clause 4.3.3.1) as BenchmarkSQL 5.0's {@code LoadData} does:
 * {@code loaders} worker threads, each with its own connection (autocommit off), take jobs from a
 * shared counter, job 0 being ITEM and {@code bmsql_config}, job w warehouse w; rows go in with
 * BenchmarkSQL's INSERT texts in JDBC batches ({@code executeBatch}: ITEM by 1,000 rows, STOCK by
 * 10,000, a district's customers, history, orders, order lines and new orders at once), one commit
 * per job. No COPY.
 */
final class TpccLoader {

    static final String INSERT_CONFIG = "INSERT INTO bmsql_config ("
            + "  cfg_name, cfg_value) "
            + "VALUES (?, ?)";
    static final String INSERT_ITEM = "INSERT INTO bmsql_item ("
            + "  i_id, i_im_id, i_name, i_price, i_data) "
            + "VALUES (?, ?, ?, ?, ?)";
    static final String INSERT_WAREHOUSE = "INSERT INTO bmsql_warehouse ("
            + "  w_id, w_name, w_street_1, w_street_2, w_city, "
            + "  w_state, w_zip, w_tax, w_ytd) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_STOCK = "INSERT INTO bmsql_stock ("
            + "  s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, "
            + "  s_dist_03, s_dist_04, s_dist_05, s_dist_06, "
            + "  s_dist_07, s_dist_08, s_dist_09, s_dist_10, "
            + "  s_ytd, s_order_cnt, s_remote_cnt, s_data) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_DISTRICT = "INSERT INTO bmsql_district ("
            + "  d_id, d_w_id, d_name, d_street_1, d_street_2, "
            + "  d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_CUSTOMER = "INSERT INTO bmsql_customer ("
            + "  c_id, c_d_id, c_w_id, c_first, c_middle, c_last, "
            + "  c_street_1, c_street_2, c_city, c_state, c_zip, "
            + "  c_phone, c_since, c_credit, c_credit_lim, c_discount, "
            + "  c_balance, c_ytd_payment, c_payment_cnt, "
            + "  c_delivery_cnt, c_data) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            + "        ?, ?, ?, ?, ?, ?)";
    static final String INSERT_HISTORY = "INSERT INTO bmsql_history ("
            + "  hist_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, "
            + "  h_date, h_amount, h_data) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_ORDER = "INSERT INTO bmsql_oorder ("
            + "  o_id, o_d_id, o_w_id, o_c_id, o_entry_d, "
            + "  o_carrier_id, o_ol_cnt, o_all_local) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_ORDER_LINE = "INSERT INTO bmsql_order_line ("
            + "  ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, "
            + "  ol_supply_w_id, ol_delivery_d, ol_quantity, "
            + "  ol_amount, ol_dist_info) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_NEW_ORDER = "INSERT INTO bmsql_new_order ("
            + "  no_o_id, no_d_id, no_w_id) "
            + "VALUES (?, ?, ?)";

    /** bmsql_config row holding the scale-down divisor; written only when it is not 1 (BenchmarkSQL knows no such row). */
    static final String SCALE_DOWN_KEY = "scaleDown";

    private static final int ITEM_BATCH = 1_000;
    private static final int STOCK_BATCH = 10_000;

    private final TpccConnector connector;
    private final TpccScale scale;
    private final NuRandConstants constants;
    private final PrintStream out;
    private final AtomicInteger nextJob = new AtomicInteger();
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    private TpccLoader(TpccConnector connector, TpccScale scale, NuRandConstants constants, PrintStream out) {
        this.connector = connector;
        this.scale = scale;
        this.constants = constants;
        this.out = out;
    }

    /**
     * Loads every table with {@code loaders} parallel workers, then runs {@link TpccSchema#afterLoad}.
     *
     * @return the load's wall-clock time in milliseconds (rows only, without the after-load statements)
     */
    static long load(TpccConnector connector, TpccScale scale, int loaders, PrintStream out) throws Exception {
        SplittableRandom seeds = new SplittableRandom();
        NuRandConstants constants = NuRandConstants.forLoad(seeds);
        TpccLoader loader = new TpccLoader(connector, scale, constants, out);
        int workers = Math.max(1, Math.min(loaders, scale.warehouses() + 1));
        out.println("Loading " + scale.warehouses() + " warehouse(s)" + (scale.scaleDown() == 1 ? ""
                : " scaled down " + scale.scaleDown() + "x (" + scale.items() + " items, " + scale.customers()
                + " customers and orders per district)") + " with " + workers + " loader(s)");
        long started = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            SplittableRandom random = seeds.split();
            int number = i;
            threads.add(Thread.ofPlatform().name("tpcc-loader-" + i).start(() -> loader.work(number, random)));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        Exception error = loader.failure.get();
        if (error != null) {
            throw new IllegalStateException("load failed: " + error.getMessage(), error);
        }
        try (Connection connection = connector.open()) {
            connection.setAutoCommit(true);
            TpccSchema.afterLoad(connection);
        }
        out.println("Load done in " + Tpcc.seconds(millis) + " s");
        return millis;
    }

    private void work(int worker, SplittableRandom seed) {
        TpccRandom random = new TpccRandom(seed, constants, scale);
        try (Connection connection = connector.open()) {
            Inserts inserts = new Inserts(connection);
            int job;
            while (failure.get() == null && (job = nextJob.getAndIncrement()) <= scale.warehouses()) {
                long started = System.nanoTime();
                if (job == 0) {
                    loadItems(inserts, random);
                } else {
                    loadWarehouse(inserts, random, job);
                }
                connection.commit();
                out.println("Worker " + worker + ": " + (job == 0 ? "ITEM" : "warehouse " + job) + " loaded in "
                        + Tpcc.seconds((System.nanoTime() - started) / 1_000_000) + " s");
            }
        } catch (SQLException e) {
            SQLException reported = e.getNextException() != null ? e.getNextException() : e;
            failure.compareAndSet(null, new SQLException("worker " + worker + ": " + reported.getMessage()
                    + " (SQLSTATE " + reported.getSQLState() + ")", reported.getSQLState(), e));
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    private void loadItems(Inserts db, TpccRandom random) throws SQLException {
        PreparedStatement config = db.config;
        putConfig(config, "warehouses", Integer.toString(scale.warehouses()));
        putConfig(config, "nURandCLast", Integer.toString(constants.lastName()));
        putConfig(config, "nURandCC_ID", Integer.toString(constants.customerId()));
        putConfig(config, "nURandCI_ID", Integer.toString(constants.itemId()));
        if (scale.scaleDown() != 1) {
            putConfig(config, SCALE_DOWN_KEY, Integer.toString(scale.scaleDown()));
        }

        PreparedStatement item = db.item;
        for (int id = 1; id <= scale.items(); id++) {
            item.setInt(1, id);
            item.setInt(2, random.uniform(1, 10_000));
            item.setString(3, random.alphanumeric(14, 24));
            item.setDouble(4, random.uniform(100, 10_000) / 100.0);
            item.setString(5, random.data());
            item.addBatch();
            if (id % ITEM_BATCH == 0) {
                item.executeBatch();
            }
        }
        item.executeBatch();
    }

    private static void putConfig(PreparedStatement config, String name, String value) throws SQLException {
        config.setString(1, name);
        config.setString(2, value);
        config.execute();
    }

    private void loadWarehouse(Inserts db, TpccRandom random, int w) throws SQLException {
        PreparedStatement warehouse = db.warehouse;
        warehouse.setInt(1, w);
        warehouse.setString(2, random.alphanumeric(6, 10));
        warehouse.setString(3, random.alphanumeric(10, 20));
        warehouse.setString(4, random.alphanumeric(10, 20));
        warehouse.setString(5, random.alphanumeric(10, 20));
        warehouse.setString(6, random.state());
        warehouse.setString(7, random.zip());
        warehouse.setDouble(8, random.uniform(0, 2_000) / 10_000.0);
        warehouse.setDouble(9, 300_000.0);
        warehouse.execute();

        PreparedStatement stock = db.stock;
        for (int item = 1; item <= scale.items(); item++) {
            stock.setInt(1, item);
            stock.setInt(2, w);
            stock.setInt(3, random.uniform(10, 100));
            for (int d = 0; d < TpccScale.DISTRICTS; d++) {
                stock.setString(4 + d, random.alphanumeric(24, 24));
            }
            stock.setInt(14, 0);
            stock.setInt(15, 0);
            stock.setInt(16, 0);
            stock.setString(17, random.data());
            stock.addBatch();
            if (item % STOCK_BATCH == 0) {
                stock.executeBatch();
            }
        }
        stock.executeBatch();

        for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
            loadDistrict(db, random, w, d);
        }
    }

    private void loadDistrict(Inserts db, TpccRandom random, int w, int d) throws SQLException {
        PreparedStatement district = db.district;
        district.setInt(1, d);
        district.setInt(2, w);
        district.setString(3, random.alphanumeric(6, 10));
        district.setString(4, random.alphanumeric(10, 20));
        district.setString(5, random.alphanumeric(10, 20));
        district.setString(6, random.alphanumeric(10, 20));
        district.setString(7, random.state());
        district.setString(8, random.zip());
        district.setDouble(9, random.uniform(0, 2_000) / 10_000.0);
        district.setDouble(10, 30_000.0);
        district.setInt(11, scale.orders() + 1);
        district.execute();

        PreparedStatement customer = db.customer;
        PreparedStatement history = db.history;
        for (int c = 1; c <= scale.customers(); c++) {
            Timestamp now = new Timestamp(System.currentTimeMillis());
            customer.setInt(1, c);
            customer.setInt(2, d);
            customer.setInt(3, w);
            customer.setString(4, random.alphanumeric(8, 16));
            customer.setString(5, "OE");
            customer.setString(6, c <= scale.lastNames() ? TpccRandom.lastName(c - 1) : random.randomLastName());
            customer.setString(7, random.alphanumeric(10, 20));
            customer.setString(8, random.alphanumeric(10, 20));
            customer.setString(9, random.alphanumeric(10, 20));
            customer.setString(10, random.state());
            customer.setString(11, random.zip());
            customer.setString(12, random.numeric(16, 16));
            customer.setTimestamp(13, now);
            customer.setString(14, random.uniform(1, 100) <= 10 ? "BC" : "GC");
            customer.setDouble(15, 50_000.00);
            customer.setDouble(16, random.uniform(0, 5_000) / 10_000.0);
            customer.setDouble(17, -10.00);
            customer.setDouble(18, 10.00);
            customer.setInt(19, 1);
            customer.setInt(20, 0);
            customer.setString(21, random.alphanumeric(300, 500));
            customer.addBatch();

            history.setInt(1, ((w - 1) * TpccScale.DISTRICTS + d - 1) * scale.customers() + c);
            history.setInt(2, c);
            history.setInt(3, d);
            history.setInt(4, w);
            history.setInt(5, d);
            history.setInt(6, w);
            history.setTimestamp(7, now);
            history.setDouble(8, 10.00);
            history.setString(9, random.alphanumeric(12, 24));
            history.addBatch();
        }
        customer.executeBatch();
        history.executeBatch();

        // Orders go to the customers in a random permutation (clause 4.3.3.1).
        int[] customers = new int[scale.orders()];
        for (int i = 0; i < customers.length; i++) {
            customers[i] = i + 1;
        }
        for (int i = customers.length - 1; i > 0; i--) {
            int j = random.uniform(0, i);
            int swap = customers[i];
            customers[i] = customers[j];
            customers[j] = swap;
        }

        PreparedStatement order = db.order;
        PreparedStatement line = db.orderLine;
        PreparedStatement newOrder = db.newOrder;
        int firstNewOrder = scale.firstNewOrder();
        for (int o = 1; o <= scale.orders(); o++) {
            boolean delivered = o < firstNewOrder;
            int lineCount = random.uniform(5, 15);
            Timestamp now = new Timestamp(System.currentTimeMillis());
            order.setInt(1, o);
            order.setInt(2, d);
            order.setInt(3, w);
            order.setInt(4, customers[o - 1]);
            order.setTimestamp(5, now);
            if (delivered) {
                order.setInt(6, random.uniform(1, 10));
            } else {
                order.setNull(6, Types.INTEGER);
            }
            order.setInt(7, lineCount);
            order.setInt(8, 1);
            order.addBatch();

            for (int number = 1; number <= lineCount; number++) {
                line.setInt(1, o);
                line.setInt(2, d);
                line.setInt(3, w);
                line.setInt(4, number);
                line.setInt(5, random.uniform(1, scale.items()));
                line.setInt(6, w);
                if (delivered) {
                    line.setTimestamp(7, now);
                } else {
                    line.setNull(7, Types.TIMESTAMP);
                }
                line.setInt(8, 5);
                line.setDouble(9, delivered ? 0.00 : random.uniform(1, 999_999) / 100.0);
                line.setString(10, random.alphanumeric(24, 24));
                line.addBatch();
            }

            if (!delivered) {
                newOrder.setInt(1, o);
                newOrder.setInt(2, d);
                newOrder.setInt(3, w);
                newOrder.addBatch();
            }
        }
        order.executeBatch();
        line.executeBatch();
        newOrder.executeBatch();
    }

    /** One loader connection's prepared INSERTs. */
    private static final class Inserts {
        final PreparedStatement config;
        final PreparedStatement item;
        final PreparedStatement warehouse;
        final PreparedStatement stock;
        final PreparedStatement district;
        final PreparedStatement customer;
        final PreparedStatement history;
        final PreparedStatement order;
        final PreparedStatement orderLine;
        final PreparedStatement newOrder;

        Inserts(Connection connection) throws SQLException {
            config = connection.prepareStatement(INSERT_CONFIG);
            item = connection.prepareStatement(INSERT_ITEM);
            warehouse = connection.prepareStatement(INSERT_WAREHOUSE);
            stock = connection.prepareStatement(INSERT_STOCK);
            district = connection.prepareStatement(INSERT_DISTRICT);
            customer = connection.prepareStatement(INSERT_CUSTOMER);
            history = connection.prepareStatement(INSERT_HISTORY);
            order = connection.prepareStatement(INSERT_ORDER);
            orderLine = connection.prepareStatement(INSERT_ORDER_LINE);
            newOrder = connection.prepareStatement(INSERT_NEW_ORDER);
        }
    }
}
