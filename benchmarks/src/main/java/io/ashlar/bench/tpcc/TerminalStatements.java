package io.ashlar.bench.tpcc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The prepared statements of one terminal connection, created once: the SQL texts BenchmarkSQL
 * 5.0 prepares for PostgreSQL in {@code jTPCCConnection}, character for character, so that what
 * reaches the server (or the proxy) is exactly what BenchmarkSQL sends.
 */
final class TerminalStatements implements AutoCloseable {

    static final String NEW_ORDER_SELECT_WAREHOUSE_CUSTOMER =
            "SELECT c_discount, c_last, c_credit, w_tax "
            + "    FROM bmsql_customer "
            + "    JOIN bmsql_warehouse ON (w_id = c_w_id) "
            + "    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
    static final String NEW_ORDER_SELECT_DISTRICT =
            "SELECT d_tax, d_next_o_id "
            + "    FROM bmsql_district "
            + "    WHERE d_w_id = ? AND d_id = ? "
            + "    FOR UPDATE";
    static final String NEW_ORDER_UPDATE_DISTRICT =
            "UPDATE bmsql_district "
            + "    SET d_next_o_id = d_next_o_id + 1 "
            + "    WHERE d_w_id = ? AND d_id = ?";
    static final String NEW_ORDER_INSERT_ORDER =
            "INSERT INTO bmsql_oorder ("
            + "    o_id, o_d_id, o_w_id, o_c_id, o_entry_d, "
            + "    o_ol_cnt, o_all_local) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String NEW_ORDER_INSERT_NEW_ORDER =
            "INSERT INTO bmsql_new_order ("
            + "    no_o_id, no_d_id, no_w_id) "
            + "VALUES (?, ?, ?)";
    static final String NEW_ORDER_SELECT_STOCK =
            "SELECT s_quantity, s_data, "
            + "       s_dist_01, s_dist_02, s_dist_03, s_dist_04, "
            + "       s_dist_05, s_dist_06, s_dist_07, s_dist_08, "
            + "       s_dist_09, s_dist_10 "
            + "    FROM bmsql_stock "
            + "    WHERE s_w_id = ? AND s_i_id = ? "
            + "    FOR UPDATE";
    static final String NEW_ORDER_SELECT_ITEM =
            "SELECT i_price, i_name, i_data "
            + "    FROM bmsql_item "
            + "    WHERE i_id = ?";
    static final String NEW_ORDER_UPDATE_STOCK =
            "UPDATE bmsql_stock "
            + "    SET s_quantity = ?, s_ytd = s_ytd + ?, "
            + "        s_order_cnt = s_order_cnt + 1, "
            + "        s_remote_cnt = s_remote_cnt + ? "
            + "    WHERE s_w_id = ? AND s_i_id = ?";
    static final String NEW_ORDER_INSERT_ORDER_LINE =
            "INSERT INTO bmsql_order_line ("
            + "    ol_o_id, ol_d_id, ol_w_id, ol_number, "
            + "    ol_i_id, ol_supply_w_id, ol_quantity, "
            + "    ol_amount, ol_dist_info) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

    static final String PAYMENT_SELECT_WAREHOUSE =
            "SELECT w_name, w_street_1, w_street_2, w_city, "
            + "       w_state, w_zip "
            + "    FROM bmsql_warehouse "
            + "    WHERE w_id = ? ";
    static final String PAYMENT_SELECT_DISTRICT =
            "SELECT d_name, d_street_1, d_street_2, d_city, "
            + "       d_state, d_zip "
            + "    FROM bmsql_district "
            + "    WHERE d_w_id = ? AND d_id = ?";
    static final String PAYMENT_SELECT_CUSTOMER_LIST_BY_LAST =
            "SELECT c_id "
            + "    FROM bmsql_customer "
            + "    WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? "
            + "    ORDER BY c_first";
    static final String PAYMENT_SELECT_CUSTOMER =
            "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, "
            + "       c_city, c_state, c_zip, c_phone, c_since, c_credit, "
            + "       c_credit_lim, c_discount, c_balance "
            + "    FROM bmsql_customer "
            + "    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? "
            + "    FOR UPDATE";
    static final String PAYMENT_SELECT_CUSTOMER_DATA =
            "SELECT c_data "
            + "    FROM bmsql_customer "
            + "    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
    static final String PAYMENT_UPDATE_WAREHOUSE =
            "UPDATE bmsql_warehouse "
            + "    SET w_ytd = w_ytd + ? "
            + "    WHERE w_id = ?";
    static final String PAYMENT_UPDATE_DISTRICT =
            "UPDATE bmsql_district "
            + "    SET d_ytd = d_ytd + ? "
            + "    WHERE d_w_id = ? AND d_id = ?";
    static final String PAYMENT_UPDATE_CUSTOMER =
            "UPDATE bmsql_customer "
            + "    SET c_balance = c_balance - ?, "
            + "        c_ytd_payment = c_ytd_payment + ?, "
            + "        c_payment_cnt = c_payment_cnt + 1 "
            + "    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
    static final String PAYMENT_UPDATE_CUSTOMER_WITH_DATA =
            "UPDATE bmsql_customer "
            + "    SET c_balance = c_balance - ?, "
            + "        c_ytd_payment = c_ytd_payment + ?, "
            + "        c_payment_cnt = c_payment_cnt + 1, "
            + "        c_data = ? "
            + "    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
    static final String PAYMENT_INSERT_HISTORY =
            "INSERT INTO bmsql_history ("
            + "    h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, "
            + "    h_date, h_amount, h_data) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    static final String ORDER_STATUS_SELECT_CUSTOMER_LIST_BY_LAST = PAYMENT_SELECT_CUSTOMER_LIST_BY_LAST;
    static final String ORDER_STATUS_SELECT_CUSTOMER =
            "SELECT c_first, c_middle, c_last, c_balance "
            + "    FROM bmsql_customer "
            + "    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
    static final String ORDER_STATUS_SELECT_LAST_ORDER =
            "SELECT o_id, o_entry_d, o_carrier_id "
            + "    FROM bmsql_oorder "
            + "    WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? "
            + "      AND o_id = ("
            + "          SELECT max(o_id) "
            + "              FROM bmsql_oorder "
            + "              WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?"
            + "          )";
    static final String ORDER_STATUS_SELECT_ORDER_LINE =
            "SELECT ol_i_id, ol_supply_w_id, ol_quantity, "
            + "       ol_amount, ol_delivery_d "
            + "    FROM bmsql_order_line "
            + "    WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ? "
            + "    ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number";

    static final String STOCK_LEVEL_SELECT_LOW =
            "SELECT count(*) AS low_stock FROM ("
            + "    SELECT s_w_id, s_i_id, s_quantity "
            + "        FROM bmsql_stock "
            + "        WHERE s_w_id = ? AND s_quantity < ? AND s_i_id IN ("
            + "            SELECT ol_i_id "
            + "                FROM bmsql_district "
            + "                JOIN bmsql_order_line ON ol_w_id = d_w_id "
            + "                 AND ol_d_id = d_id "
            + "                 AND ol_o_id >= d_next_o_id - 20 "
            + "                 AND ol_o_id < d_next_o_id "
            + "                WHERE d_w_id = ? AND d_id = ? "
            + "        ) "
            + "    ) AS L";

    static final String DELIVERY_SELECT_OLDEST_NEW_ORDER =
            "SELECT no_o_id "
            + "    FROM bmsql_new_order "
            + "    WHERE no_w_id = ? AND no_d_id = ? "
            + "    ORDER BY no_o_id ASC";
    static final String DELIVERY_DELETE_OLDEST_NEW_ORDER =
            "DELETE FROM bmsql_new_order "
            + "    WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?";
    static final String DELIVERY_SELECT_ORDER =
            "SELECT o_c_id "
            + "    FROM bmsql_oorder "
            + "    WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?";
    static final String DELIVERY_UPDATE_ORDER =
            "UPDATE bmsql_oorder "
            + "    SET o_carrier_id = ? "
            + "    WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?";
    static final String DELIVERY_SELECT_SUM_OL_AMOUNT =
            "SELECT sum(ol_amount) AS sum_ol_amount "
            + "    FROM bmsql_order_line "
            + "    WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?";
    static final String DELIVERY_UPDATE_ORDER_LINE =
            "UPDATE bmsql_order_line "
            + "    SET ol_delivery_d = ? "
            + "    WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?";
    static final String DELIVERY_UPDATE_CUSTOMER =
            "UPDATE bmsql_customer "
            + "    SET c_balance = c_balance + ?, "
            + "        c_delivery_cnt = c_delivery_cnt + 1 "
            + "    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";

    final Connection connection;

    final PreparedStatement newOrderSelectWarehouseCustomer;
    final PreparedStatement newOrderSelectDistrict;
    final PreparedStatement newOrderUpdateDistrict;
    final PreparedStatement newOrderInsertOrder;
    final PreparedStatement newOrderInsertNewOrder;
    final PreparedStatement newOrderSelectStock;
    final PreparedStatement newOrderSelectItem;
    final PreparedStatement newOrderUpdateStock;
    final PreparedStatement newOrderInsertOrderLine;

    final PreparedStatement paymentSelectWarehouse;
    final PreparedStatement paymentSelectDistrict;
    final PreparedStatement paymentSelectCustomerListByLast;
    final PreparedStatement paymentSelectCustomer;
    final PreparedStatement paymentSelectCustomerData;
    final PreparedStatement paymentUpdateWarehouse;
    final PreparedStatement paymentUpdateDistrict;
    final PreparedStatement paymentUpdateCustomer;
    final PreparedStatement paymentUpdateCustomerWithData;
    final PreparedStatement paymentInsertHistory;

    final PreparedStatement orderStatusSelectCustomerListByLast;
    final PreparedStatement orderStatusSelectCustomer;
    final PreparedStatement orderStatusSelectLastOrder;
    final PreparedStatement orderStatusSelectOrderLine;

    final PreparedStatement stockLevelSelectLow;

    final PreparedStatement deliverySelectOldestNewOrder;
    final PreparedStatement deliveryDeleteOldestNewOrder;
    final PreparedStatement deliverySelectOrder;
    final PreparedStatement deliveryUpdateOrder;
    final PreparedStatement deliverySelectSumOlAmount;
    final PreparedStatement deliveryUpdateOrderLine;
    final PreparedStatement deliveryUpdateCustomer;

    /** Prepares every statement on {@code connection} (pgjdbc sends nothing until the first execution). */
    TerminalStatements(Connection connection) throws SQLException {
        this.connection = connection;
        newOrderSelectWarehouseCustomer = connection.prepareStatement(NEW_ORDER_SELECT_WAREHOUSE_CUSTOMER);
        newOrderSelectDistrict = connection.prepareStatement(NEW_ORDER_SELECT_DISTRICT);
        newOrderUpdateDistrict = connection.prepareStatement(NEW_ORDER_UPDATE_DISTRICT);
        newOrderInsertOrder = connection.prepareStatement(NEW_ORDER_INSERT_ORDER);
        newOrderInsertNewOrder = connection.prepareStatement(NEW_ORDER_INSERT_NEW_ORDER);
        newOrderSelectStock = connection.prepareStatement(NEW_ORDER_SELECT_STOCK);
        newOrderSelectItem = connection.prepareStatement(NEW_ORDER_SELECT_ITEM);
        newOrderUpdateStock = connection.prepareStatement(NEW_ORDER_UPDATE_STOCK);
        newOrderInsertOrderLine = connection.prepareStatement(NEW_ORDER_INSERT_ORDER_LINE);

        paymentSelectWarehouse = connection.prepareStatement(PAYMENT_SELECT_WAREHOUSE);
        paymentSelectDistrict = connection.prepareStatement(PAYMENT_SELECT_DISTRICT);
        paymentSelectCustomerListByLast = connection.prepareStatement(PAYMENT_SELECT_CUSTOMER_LIST_BY_LAST);
        paymentSelectCustomer = connection.prepareStatement(PAYMENT_SELECT_CUSTOMER);
        paymentSelectCustomerData = connection.prepareStatement(PAYMENT_SELECT_CUSTOMER_DATA);
        paymentUpdateWarehouse = connection.prepareStatement(PAYMENT_UPDATE_WAREHOUSE);
        paymentUpdateDistrict = connection.prepareStatement(PAYMENT_UPDATE_DISTRICT);
        paymentUpdateCustomer = connection.prepareStatement(PAYMENT_UPDATE_CUSTOMER);
        paymentUpdateCustomerWithData = connection.prepareStatement(PAYMENT_UPDATE_CUSTOMER_WITH_DATA);
        paymentInsertHistory = connection.prepareStatement(PAYMENT_INSERT_HISTORY);

        orderStatusSelectCustomerListByLast = connection.prepareStatement(ORDER_STATUS_SELECT_CUSTOMER_LIST_BY_LAST);
        orderStatusSelectCustomer = connection.prepareStatement(ORDER_STATUS_SELECT_CUSTOMER);
        orderStatusSelectLastOrder = connection.prepareStatement(ORDER_STATUS_SELECT_LAST_ORDER);
        orderStatusSelectOrderLine = connection.prepareStatement(ORDER_STATUS_SELECT_ORDER_LINE);

        stockLevelSelectLow = connection.prepareStatement(STOCK_LEVEL_SELECT_LOW);

        deliverySelectOldestNewOrder = connection.prepareStatement(DELIVERY_SELECT_OLDEST_NEW_ORDER);
        deliveryDeleteOldestNewOrder = connection.prepareStatement(DELIVERY_DELETE_OLDEST_NEW_ORDER);
        deliverySelectOrder = connection.prepareStatement(DELIVERY_SELECT_ORDER);
        deliveryUpdateOrder = connection.prepareStatement(DELIVERY_UPDATE_ORDER);
        deliverySelectSumOlAmount = connection.prepareStatement(DELIVERY_SELECT_SUM_OL_AMOUNT);
        deliveryUpdateOrderLine = connection.prepareStatement(DELIVERY_UPDATE_ORDER_LINE);
        deliveryUpdateCustomer = connection.prepareStatement(DELIVERY_UPDATE_CUSTOMER);
    }

    /** Closes the connection, and with it every statement. */
    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
