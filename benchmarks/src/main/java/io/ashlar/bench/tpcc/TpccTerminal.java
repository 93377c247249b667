package io.ashlar.bench.tpcc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;

/**
 * One TPC-C terminal: a thread with its own connection, prepared statements and random source,
 * running transactions back to back (no keying or think time) until the end of the run, as
 * BenchmarkSQL 5.0's terminal does, with its SQL and its order of statements (see
 * {@link TerminalStatements}). Autocommit is off; every transaction ends with a commit, or with a
 * rollback for the read-only ones and New-Order's unused item, as BenchmarkSQL's do.
 *
 * <p>A serialization failure (40001) or deadlock (40P01) rolls back and runs the same transaction
 * again, up to {@value #MAX_ATTEMPTS} times, counting a retry each time (BenchmarkSQL logs such an
 * error and moves on; neither happens at READ COMMITTED with BenchmarkSQL's lock order, so a
 * retry count above zero is itself a finding). Any other error rolls back, is counted as an error
 * of its transaction type, and the terminal goes on with the next transaction.
 *
 * <p>The loop allocates little: inputs live in preallocated arrays, latencies go to a
 * {@link LatencyHistogram}; what remains is pgjdbc's own work and the strings it returns.
 */
final class TpccTerminal implements Runnable {

    static final int MAX_ATTEMPTS = 5;
    private static final int MAX_LINES = 15;
    private static final int OK = 0;
    private static final int ROLLED_BACK = 1;
    private static final int FAILED = 2;

    private final int number;
    private final int homeWarehouse;
    private final int homeDistrict;
    private final boolean fixedHome;
    private final TpccScale scale;
    private final TerminalStatements db;
    private final TpccRandom random;
    private final TerminalStats stats;
    private final ErrorLog errors;
    private final long measureFrom;
    private final long measureUntil;

    /** The statement being run, for error messages (a constant string assigned per statement). */
    private String stage = "";

    // Inputs of the transaction being run, kept so that a retry runs the same transaction.
    private int warehouse;
    private int district;
    private int customer;
    private int customerWarehouse;
    private int customerDistrict;
    private String lastName;
    private long amountCents;
    private int carrier;
    private int threshold;
    private int lines;
    private boolean invalidItem;
    private final int[] lineItem = new int[MAX_LINES];
    private final int[] lineSupplier = new int[MAX_LINES];
    private final int[] lineQuantity = new int[MAX_LINES];
    private final int[] lineOrder = new int[MAX_LINES];
    private int[] customerIds = new int[64];

    /**
     * @param number       terminal number, for messages
     * @param homeWarehouse home warehouse (fixed mode), 1 .. W
     * @param homeDistrict  home district (fixed mode; Stock-Level's district), 1 .. 10
     * @param fixedHome     false: every transaction picks a warehouse and district at random
     * @param measureFrom   {@link System#nanoTime()} from which completed transactions are counted
     * @param measureUntil  {@link System#nanoTime()} at which the terminal stops; later completions are not counted
     */
    TpccTerminal(int number, int homeWarehouse, int homeDistrict, boolean fixedHome, TpccScale scale, TerminalStatements db,
                 TpccRandom random, TerminalStats stats, ErrorLog errors, long measureFrom, long measureUntil) {
        this.number = number;
        this.homeWarehouse = homeWarehouse;
        this.homeDistrict = homeDistrict;
        this.fixedHome = fixedHome;
        this.scale = scale;
        this.db = db;
        this.random = random;
        this.stats = stats;
        this.errors = errors;
        this.measureFrom = measureFrom;
        this.measureUntil = measureUntil;
    }

    @Override
    public void run() {
        while (System.nanoTime() < measureUntil) {
            runOne(TransactionType.forDraw(random.uniform(1, 100)));
        }
    }

    /**
     * Runs one transaction of the type and counts it in {@link TerminalStats} (completed and timed only within
     * the measured time, errors always), as each turn of {@link #run()} does; a test runs each type this way.
     */
    void runOne(TransactionType type) {
        long start = System.nanoTime();
        int outcome = execute(type);
        long end = System.nanoTime();
        if (outcome != FAILED) {
            stats.progressTotal = stats.progressTotal + 1;
            if (type == TransactionType.NEW_ORDER) {
                stats.progressNewOrders = stats.progressNewOrders + 1;
            }
            if (start >= measureFrom && end <= measureUntil) {
                int t = type.ordinal();
                stats.completed[t]++;
                if (outcome == ROLLED_BACK) {
                    stats.rollbacks[t]++;
                }
                stats.latencies[t].record((end - start) / 1_000);
            }
        }
    }

    /** Generates the input of one transaction of {@code type} and runs it, retrying serialization failures and deadlocks. */
    private int execute(TransactionType type) {
        warehouse = fixedHome ? homeWarehouse : random.uniform(1, scale.warehouses());
        district = fixedHome ? homeDistrict : random.uniform(1, TpccScale.DISTRICTS);
        switch (type) {
            case NEW_ORDER -> generateNewOrder();
            case PAYMENT -> generatePayment();
            case ORDER_STATUS -> generateOrderStatus();
            case DELIVERY -> carrier = random.uniform(1, 10);
            case STOCK_LEVEL -> threshold = random.uniform(10, 20);
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return switch (type) {
                    case NEW_ORDER -> newOrder();
                    case PAYMENT -> payment();
                    case ORDER_STATUS -> orderStatus();
                    case DELIVERY -> delivery();
                    case STOCK_LEVEL -> stockLevel();
                };
            } catch (SQLException e) {
                rollbackQuietly();
                String state = e.getSQLState();
                boolean retryable = "40001".equals(state) || "40P01".equals(state);
                if (retryable && attempt < MAX_ATTEMPTS) {
                    stats.retries[type.ordinal()]++;
                    continue;
                }
                stats.errors[type.ordinal()]++;
                errors.report(number, type, stage, e);
                return FAILED;
            } catch (RuntimeException e) {
                // A driver that cannot read a value (a proxy's garbled binary NUMERIC, say): the
                // transaction is rolled back and counted, so that its locks do not hang the others.
                rollbackQuietly();
                stats.errors[type.ordinal()]++;
                errors.report(number, type, stage, new SQLException("client-side failure: " + e, "XX000", e));
                return FAILED;
            }
        }
    }

    private void rollbackQuietly() {
        try {
            db.newOrderUpdateStock.clearBatch();
            db.newOrderInsertOrderLine.clearBatch();
            db.connection.rollback();
        } catch (SQLException ignored) {
            // The connection is broken; the next statement reports it.
        }
    }

    // ---- New-Order (clause 2.4) ----------------------------------------------------------------

    private void generateNewOrder() {
        district = random.uniform(1, TpccScale.DISTRICTS);
        customer = random.customerId();
        lines = random.uniform(5, MAX_LINES);
        for (int i = 0; i < lines; i++) {
            lineItem[i] = random.itemId();
            if (random.uniform(1, 100) <= 99 || scale.warehouses() == 1) {
                lineSupplier[i] = warehouse;
            } else {
                int other;
                do {
                    other = random.uniform(1, scale.warehouses());
                } while (other == warehouse);
                lineSupplier[i] = other;
            }
            lineQuantity[i] = random.uniform(1, 10);
        }
        invalidItem = random.uniform(1, 100) == 1;
        if (invalidItem) {
            lineItem[lines - 1] += random.uniform(1, 9) * 1_000_000;
        }
    }

    private int newOrder() throws SQLException {
        // Lines are processed in (supplying warehouse, item) order, as BenchmarkSQL does, so that two
        // New-Orders lock their STOCK rows in the same order and cannot deadlock.
        boolean allLocal = true;
        for (int i = 0; i < lines; i++) {
            lineOrder[i] = i;
            allLocal &= lineSupplier[i] == warehouse;
        }
        for (int i = 1; i < lines; i++) {
            int line = lineOrder[i];
            int j = i - 1;
            while (j >= 0 && lineBefore(line, lineOrder[j])) {
                lineOrder[j + 1] = lineOrder[j];
                j--;
            }
            lineOrder[j + 1] = line;
        }

        PreparedStatement statement = db.newOrderSelectDistrict;
        stage = "NewOrderSelectDist";
        statement.setInt(1, warehouse);
        statement.setInt(2, district);
        int orderId;
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw notFound("district " + warehouse + "/" + district);
            }
            rs.getDouble(1); // the values a terminal displays are read, not used: the client's work stays BenchmarkSQL's
            orderId = rs.getInt(2);
        }

        statement = db.newOrderSelectWarehouseCustomer;
        stage = "NewOrderSelectWhseCust";
        statement.setInt(1, warehouse);
        statement.setInt(2, district);
        statement.setInt(3, customer);
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw notFound("warehouse or customer " + warehouse + "/" + district + "/" + customer);
            }
            rs.getDouble(1);
        }

        statement = db.newOrderUpdateDistrict;
        stage = "NewOrderUpdateDist";
        statement.setInt(1, warehouse);
        statement.setInt(2, district);
        statement.executeUpdate();

        statement = db.newOrderInsertOrder;
        stage = "NewOrderInsertOrder";
        statement.setInt(1, orderId);
        statement.setInt(2, district);
        statement.setInt(3, warehouse);
        statement.setInt(4, customer);
        statement.setTimestamp(5, new Timestamp(System.currentTimeMillis()));
        statement.setInt(6, lines);
        statement.setInt(7, allLocal ? 1 : 0);
        statement.executeUpdate();

        statement = db.newOrderInsertNewOrder;
        stage = "NewOrderInsertNewOrder";
        statement.setInt(1, orderId);
        statement.setInt(2, district);
        statement.setInt(3, warehouse);
        statement.executeUpdate();

        PreparedStatement updateStock = db.newOrderUpdateStock;
        PreparedStatement insertLine = db.newOrderInsertOrderLine;
        for (int i = 0; i < lines; i++) {
            int line = lineOrder[i];
            int item = lineItem[line];
            int supplier = lineSupplier[line];
            int quantity = lineQuantity[line];

            statement = db.newOrderSelectItem;
            stage = "NewOrderSelectItem";
            statement.setInt(1, item);
            double price;
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    if (invalidItem && item > scale.items()) {
                        // Clause 2.4.2.3: everything up to the unused item runs, then the whole
                        // transaction rolls back; the batched stock updates and order lines too.
                        stage = "NewOrderUpdateStock (batch)";
                        updateStock.executeBatch();
                        stage = "NewOrderInsertOrderLine (batch)";
                        insertLine.executeBatch();
                        stage = "rollback";
                        db.connection.rollback();
                        return ROLLED_BACK;
                    }
                    throw notFound("item " + item);
                }
                price = rs.getDouble(1);
            }

            statement = db.newOrderSelectStock;
            stage = "NewOrderSelectStock";
            statement.setInt(1, supplier);
            statement.setInt(2, item);
            int stockQuantity;
            String districtInfo;
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    throw notFound("stock " + supplier + "/" + item);
                }
                stockQuantity = rs.getInt(1);
                districtInfo = rs.getString(2 + district);
            }

            updateStock.setInt(1, stockQuantity >= quantity + 10 ? stockQuantity - quantity : stockQuantity - quantity + 91);
            updateStock.setInt(2, quantity);
            updateStock.setInt(3, supplier == warehouse ? 0 : 1);
            updateStock.setInt(4, supplier);
            updateStock.setInt(5, item);
            updateStock.addBatch();

            insertLine.setInt(1, orderId);
            insertLine.setInt(2, district);
            insertLine.setInt(3, warehouse);
            insertLine.setInt(4, line + 1);
            insertLine.setInt(5, item);
            insertLine.setInt(6, supplier);
            insertLine.setInt(7, quantity);
            insertLine.setDouble(8, price * quantity);
            insertLine.setString(9, districtInfo);
            insertLine.addBatch();
        }

        stage = "NewOrderUpdateStock (batch)";
        updateStock.executeBatch();
        stage = "NewOrderInsertOrderLine (batch)";
        insertLine.executeBatch();
        stage = "commit";
        db.connection.commit();
        return OK;
    }

    private boolean lineBefore(int a, int b) {
        return lineSupplier[a] < lineSupplier[b] || lineSupplier[a] == lineSupplier[b] && lineItem[a] < lineItem[b];
    }

    // ---- Payment (clause 2.5) ------------------------------------------------------------------

    private void generatePayment() {
        district = random.uniform(1, TpccScale.DISTRICTS);
        customerWarehouse = warehouse;
        customerDistrict = district;
        if (random.uniform(1, 100) > 85) {
            customerDistrict = random.uniform(1, TpccScale.DISTRICTS);
            while (customerWarehouse == warehouse && scale.warehouses() > 1) {
                customerWarehouse = random.uniform(1, scale.warehouses());
            }
        }
        if (random.uniform(1, 100) <= 60) {
            lastName = random.randomLastName();
            customer = 0;
        } else {
            lastName = null;
            customer = random.customerId();
        }
        amountCents = random.uniform(100, 500_000);
    }

    private int payment() throws SQLException {
        double amount = amountCents / 100.0;

        PreparedStatement statement = db.paymentUpdateDistrict;
        stage = "PaymentUpdateDistrict";
        statement.setDouble(1, amount);
        statement.setInt(2, warehouse);
        statement.setInt(3, district);
        statement.executeUpdate();

        statement = db.paymentSelectDistrict;
        stage = "PaymentSelectDistrict";
        statement.setInt(1, warehouse);
        statement.setInt(2, district);
        String districtName;
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw notFound("district " + warehouse + "/" + district);
            }
            districtName = rs.getString(1);
        }

        statement = db.paymentUpdateWarehouse;
        stage = "PaymentUpdateWarehouse";
        statement.setDouble(1, amount);
        statement.setInt(2, warehouse);
        statement.executeUpdate();

        statement = db.paymentSelectWarehouse;
        stage = "PaymentSelectWarehouse";
        statement.setInt(1, warehouse);
        String warehouseName;
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw notFound("warehouse " + warehouse);
            }
            warehouseName = rs.getString(1);
        }

        int customerId = lastName == null ? customer
                : customerByLastName(db.paymentSelectCustomerListByLast, "PaymentSelectCustomerListByLast",
                        customerWarehouse, customerDistrict);

        statement = db.paymentSelectCustomer;
        stage = "PaymentSelectCustomer";
        statement.setInt(1, customerWarehouse);
        statement.setInt(2, customerDistrict);
        statement.setInt(3, customerId);
        String credit;
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw notFound("customer " + customerWarehouse + "/" + customerDistrict + "/" + customerId);
            }
            credit = rs.getString(11);
        }

        if ("GC".equals(credit)) {
            statement = db.paymentUpdateCustomer;
            stage = "PaymentUpdateCustomer";
            statement.setDouble(1, amount);
            statement.setDouble(2, amount);
            statement.setInt(3, customerWarehouse);
            statement.setInt(4, customerDistrict);
            statement.setInt(5, customerId);
            statement.executeUpdate();
        } else {
            statement = db.paymentSelectCustomerData;
            stage = "PaymentSelectCustomerData";
            statement.setInt(1, customerWarehouse);
            statement.setInt(2, customerDistrict);
            statement.setInt(3, customerId);
            String data;
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    throw notFound("customer data " + customerWarehouse + "/" + customerDistrict + "/" + customerId);
                }
                data = rs.getString(1);
            }
            StringBuilder newData = new StringBuilder(520).append("C_ID=").append(customerId)
                    .append(" C_D_ID=").append(customerDistrict).append(" C_W_ID=").append(customerWarehouse)
                    .append(" D_ID=").append(district).append(" W_ID=").append(warehouse)
                    .append(" H_AMOUNT=").append(amountCents / 100).append('.')
                    .append((char) ('0' + amountCents % 100 / 10)).append((char) ('0' + amountCents % 10))
                    .append("   ").append(data);
            if (newData.length() > 500) {
                newData.setLength(500);
            }
            statement = db.paymentUpdateCustomerWithData;
            stage = "PaymentUpdateCustomerWithData";
            statement.setDouble(1, amount);
            statement.setDouble(2, amount);
            statement.setString(3, newData.toString());
            statement.setInt(4, customerWarehouse);
            statement.setInt(5, customerDistrict);
            statement.setInt(6, customerId);
            statement.executeUpdate();
        }

        statement = db.paymentInsertHistory;
        stage = "PaymentInsertHistory";
        statement.setInt(1, customerId);
        statement.setInt(2, customerDistrict);
        statement.setInt(3, customerWarehouse);
        statement.setInt(4, district);
        statement.setInt(5, warehouse);
        statement.setTimestamp(6, new Timestamp(System.currentTimeMillis()));
        statement.setDouble(7, amount);
        statement.setString(8, warehouseName + "    " + districtName);
        statement.executeUpdate();

        stage = "commit";
        db.connection.commit();
        return OK;
    }

    /** The customer in the middle of those with {@link #lastName}, sorted by first name (clause 2.5.2.2). */
    private int customerByLastName(PreparedStatement statement, String name, int w, int d) throws SQLException {
        stage = name;
        statement.setInt(1, w);
        statement.setInt(2, d);
        statement.setString(3, lastName);
        int count = 0;
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                if (count == customerIds.length) {
                    customerIds = java.util.Arrays.copyOf(customerIds, count * 2);
                }
                customerIds[count++] = rs.getInt(1);
            }
        }
        if (count == 0) {
            throw notFound("customers " + w + "/" + d + " named " + lastName);
        }
        return customerIds[(count + 1) / 2 - 1];
    }

    // ---- Order-Status (clause 2.6) -------------------------------------------------------------

    private void generateOrderStatus() {
        district = random.uniform(1, TpccScale.DISTRICTS);
        if (random.uniform(1, 100) <= 60) {
            lastName = random.randomLastName();
            customer = 0;
        } else {
            lastName = null;
            customer = random.customerId();
        }
    }

    private int orderStatus() throws SQLException {
        int customerId = lastName == null ? customer
                : customerByLastName(db.orderStatusSelectCustomerListByLast, "OrderStatusSelectCustomerListByLast",
                        warehouse, district);

        PreparedStatement statement = db.orderStatusSelectCustomer;
        stage = "OrderStatusSelectCustomer";
        statement.setInt(1, warehouse);
        statement.setInt(2, district);
        statement.setInt(3, customerId);
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw notFound("customer " + warehouse + "/" + district + "/" + customerId);
            }
            rs.getDouble(4);
        }

        statement = db.orderStatusSelectLastOrder;
        stage = "OrderStatusSelectLastOrder";
        statement.setInt(1, warehouse);
        statement.setInt(2, district);
        statement.setInt(3, customerId);
        statement.setInt(4, warehouse);
        statement.setInt(5, district);
        statement.setInt(6, customerId);
        int orderId;
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw notFound("last order of customer " + warehouse + "/" + district + "/" + customerId);
            }
            orderId = rs.getInt(1);
        }

        statement = db.orderStatusSelectOrderLine;
        stage = "OrderStatusSelectOrderLine";
        statement.setInt(1, warehouse);
        statement.setInt(2, district);
        statement.setInt(3, orderId);
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                rs.getInt(1);
            }
        }

        stage = "rollback";
        db.connection.rollback();
        return OK;
    }

    // ---- Delivery, its deferred part (clause 2.7.4) --------------------------------------------

    private int delivery() throws SQLException {
        Timestamp now = new Timestamp(System.currentTimeMillis());
        for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
            int orderId = -1;
            while (orderId < 0) {
                PreparedStatement statement = db.deliverySelectOldestNewOrder;
                stage = "DeliverySelectOldestNewOrder";
                statement.setInt(1, warehouse);
                statement.setInt(2, d);
                try (ResultSet rs = statement.executeQuery()) {
                    if (!rs.next()) {
                        break;
                    }
                    orderId = rs.getInt(1);
                }
                statement = db.deliveryDeleteOldestNewOrder;
                stage = "DeliveryDeleteOldestNewOrder";
                statement.setInt(1, warehouse);
                statement.setInt(2, d);
                statement.setInt(3, orderId);
                if (statement.executeUpdate() == 0) {
                    // Another Delivery took this order first (READ COMMITTED): look again.
                    orderId = -1;
                }
            }
            if (orderId < 0) {
                continue;
            }

            PreparedStatement statement = db.deliveryUpdateOrder;
            stage = "DeliveryUpdateOrder";
            statement.setInt(1, carrier);
            statement.setInt(2, warehouse);
            statement.setInt(3, d);
            statement.setInt(4, orderId);
            statement.executeUpdate();

            statement = db.deliverySelectOrder;
            stage = "DeliverySelectOrder";
            statement.setInt(1, warehouse);
            statement.setInt(2, d);
            statement.setInt(3, orderId);
            int customerId;
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    throw notFound("order " + warehouse + "/" + d + "/" + orderId);
                }
                customerId = rs.getInt(1);
            }

            statement = db.deliveryUpdateOrderLine;
            stage = "DeliveryUpdateOrderLine";
            statement.setTimestamp(1, now);
            statement.setInt(2, warehouse);
            statement.setInt(3, d);
            statement.setInt(4, orderId);
            statement.executeUpdate();

            statement = db.deliverySelectSumOlAmount;
            stage = "DeliverySelectSumOLAmount";
            statement.setInt(1, warehouse);
            statement.setInt(2, d);
            statement.setInt(3, orderId);
            double sum;
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    throw notFound("order lines of " + warehouse + "/" + d + "/" + orderId);
                }
                sum = rs.getDouble(1);
            }

            statement = db.deliveryUpdateCustomer;
            stage = "DeliveryUpdateCustomer";
            statement.setDouble(1, sum);
            statement.setInt(2, warehouse);
            statement.setInt(3, d);
            statement.setInt(4, customerId);
            statement.executeUpdate();
        }
        stage = "commit";
        db.connection.commit();
        return OK;
    }

    // ---- Stock-Level (clause 2.8) --------------------------------------------------------------

    private int stockLevel() throws SQLException {
        PreparedStatement statement = db.stockLevelSelectLow;
        stage = "StockLevelSelectLow";
        statement.setInt(1, warehouse);
        statement.setInt(2, threshold);
        statement.setInt(3, warehouse);
        statement.setInt(4, district);
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw notFound("low stock of " + warehouse + "/" + district);
            }
            rs.getInt(1);
        }
        stage = "rollback";
        db.connection.rollback();
        return OK;
    }

    private static SQLException notFound(String what) {
        return new SQLException(what + " not found");
    }
}
