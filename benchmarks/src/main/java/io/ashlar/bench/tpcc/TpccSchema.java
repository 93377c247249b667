package io.ashlar.bench.tpcc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * BenchmarkSQL 5.0's PostgreSQL schema: the {@code bmsql_*} tables of its
 * {@code run/sql.common/tableCreates.sql} and the keys and indexes of its {@code indexCreates.sql},
 * sent as separate statements, as its {@code runSQL.sh} does.
 *
 * <p>Two departures, both because the data may be split over several shards:
 * <ul>
 *   <li>No foreign keys ({@code foreignKeys.sql}): 1% of the order lines and 15% of the payments
 *       refer to another warehouse, which may live on another shard, where a foreign key cannot
 *       look.</li>
 *   <li>{@code bmsql_history.hist_id}: BenchmarkSQL creates a sequence {@code bmsql_hist_id_seq}
 *       before the load and, after it ({@code sql.postgres/extraHistID.sql}), sets the sequence to
 *       {@code max(hist_id)} and makes it the column's default. Through a sharding proxy the
 *       sequence exists on one data source only and {@code setval(..., (SELECT max(hist_id) FROM
 *       bmsql_history))} reads every shard, so instead the column becomes an identity column (a
 *       sequence of its own on every actual table, as {@code serial} would be) and the loader
 *       restarts it past the ids it wrote. Payment's INSERT, which leaves hist_id out, is the same.
 *       Ashlar interleaves the actual tables' identity sequences (docs/sharding.md, Sequences), so
 *       the key is unique across shards; through BenchmarkSQL's own extraHistID.sql it is too.</li>
 * </ul>
 *
 * <p>BenchmarkSQL creates the keys and indexes after the load ({@code runDatabaseBuild.sh}); the
 * driver's {@code all} does the same, its {@code create} makes them at once unless told not to.
 */
final class TpccSchema {

    /** Every table, in creation order. */
    static final List<String> TABLES = List.of("bmsql_config", "bmsql_warehouse", "bmsql_district", "bmsql_customer",
            "bmsql_history", "bmsql_new_order", "bmsql_oorder", "bmsql_order_line", "bmsql_item", "bmsql_stock");

    static final List<String> CREATE_TABLES = List.of("""
            create table bmsql_config (
              cfg_name    varchar(30) primary key,
              cfg_value   varchar(50)
            )""", """
            create table bmsql_warehouse (
              w_id        integer   not null,
              w_ytd       decimal(12,2),
              w_tax       decimal(4,4),
              w_name      varchar(10),
              w_street_1  varchar(20),
              w_street_2  varchar(20),
              w_city      varchar(20),
              w_state     char(2),
              w_zip       char(9)
            )""", """
            create table bmsql_district (
              d_w_id       integer       not null,
              d_id         integer       not null,
              d_ytd        decimal(12,2),
              d_tax        decimal(4,4),
              d_next_o_id  integer,
              d_name       varchar(10),
              d_street_1   varchar(20),
              d_street_2   varchar(20),
              d_city       varchar(20),
              d_state      char(2),
              d_zip        char(9)
            )""", """
            create table bmsql_customer (
              c_w_id         integer        not null,
              c_d_id         integer        not null,
              c_id           integer        not null,
              c_discount     decimal(4,4),
              c_credit       char(2),
              c_last         varchar(16),
              c_first        varchar(16),
              c_credit_lim   decimal(12,2),
              c_balance      decimal(12,2),
              c_ytd_payment  decimal(12,2),
              c_payment_cnt  integer,
              c_delivery_cnt integer,
              c_street_1     varchar(20),
              c_street_2     varchar(20),
              c_city         varchar(20),
              c_state        char(2),
              c_zip          char(9),
              c_phone        char(16),
              c_since        timestamp,
              c_middle       char(2),
              c_data         varchar(500)
            )""", """
            create table bmsql_history (
              hist_id  integer,
              h_c_id   integer,
              h_c_d_id integer,
              h_c_w_id integer,
              h_d_id   integer,
              h_w_id   integer,
              h_date   timestamp,
              h_amount decimal(6,2),
              h_data   varchar(24)
            )""", """
            create table bmsql_new_order (
              no_w_id  integer   not null,
              no_d_id  integer   not null,
              no_o_id  integer   not null
            )""", """
            create table bmsql_oorder (
              o_w_id       integer      not null,
              o_d_id       integer      not null,
              o_id         integer      not null,
              o_c_id       integer,
              o_carrier_id integer,
              o_ol_cnt     integer,
              o_all_local  integer,
              o_entry_d    timestamp
            )""", """
            create table bmsql_order_line (
              ol_w_id         integer   not null,
              ol_d_id         integer   not null,
              ol_o_id         integer   not null,
              ol_number       integer   not null,
              ol_i_id         integer   not null,
              ol_delivery_d   timestamp,
              ol_amount       decimal(6,2),
              ol_supply_w_id  integer,
              ol_quantity     integer,
              ol_dist_info    char(24)
            )""", """
            create table bmsql_item (
              i_id     integer      not null,
              i_name   varchar(24),
              i_price  decimal(5,2),
              i_data   varchar(50),
              i_im_id  integer
            )""", """
            create table bmsql_stock (
              s_w_id       integer       not null,
              s_i_id       integer       not null,
              s_quantity   integer,
              s_ytd        integer,
              s_order_cnt  integer,
              s_remote_cnt integer,
              s_data       varchar(50),
              s_dist_01    char(24),
              s_dist_02    char(24),
              s_dist_03    char(24),
              s_dist_04    char(24),
              s_dist_05    char(24),
              s_dist_06    char(24),
              s_dist_07    char(24),
              s_dist_08    char(24),
              s_dist_09    char(24),
              s_dist_10    char(24)
            )""");

    /** BenchmarkSQL's indexCreates.sql, then the history key (see the class comment). */
    static final List<String> CREATE_INDEXES = List.of(
            "alter table bmsql_warehouse add constraint bmsql_warehouse_pkey primary key (w_id)",
            "alter table bmsql_district add constraint bmsql_district_pkey primary key (d_w_id, d_id)",
            "alter table bmsql_customer add constraint bmsql_customer_pkey primary key (c_w_id, c_d_id, c_id)",
            "create index bmsql_customer_idx1 on  bmsql_customer (c_w_id, c_d_id, c_last, c_first)",
            "alter table bmsql_oorder add constraint bmsql_oorder_pkey primary key (o_w_id, o_d_id, o_id)",
            "create unique index bmsql_oorder_idx1 on  bmsql_oorder (o_w_id, o_d_id, o_carrier_id, o_id)",
            "alter table bmsql_new_order add constraint bmsql_new_order_pkey primary key (no_w_id, no_d_id, no_o_id)",
            "alter table bmsql_order_line add constraint bmsql_order_line_pkey primary key (ol_w_id, ol_d_id, ol_o_id, ol_number)",
            "alter table bmsql_stock add constraint bmsql_stock_pkey primary key (s_w_id, s_i_id)",
            "alter table bmsql_item add constraint bmsql_item_pkey primary key (i_id)",
            "alter table bmsql_history add primary key (hist_id)",
            "alter table bmsql_history alter column hist_id add generated by default as identity");

    private TpccSchema() {
    }

    /** {@code drop table if exists} for every table, last created first. */
    static List<String> dropTables() {
        String[] result = new String[TABLES.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = "drop table if exists " + TABLES.get(TABLES.size() - 1 - i);
        }
        return List.of(result);
    }

    /**
     * After a load: history ids continue after the loaded ones (when hist_id is already an identity
     * column, that is when the indexes were created before the load), and fresh statistics for the
     * planner (BenchmarkSQL's buildFinish.sql runs vacuum analyze).
     */
    static void afterLoad(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            boolean identity;
            try (ResultSet rs = statement.executeQuery("SELECT is_identity FROM information_schema.columns"
                    + " WHERE table_name = 'bmsql_history' AND column_name = 'hist_id'")) {
                identity = rs.next() && "YES".equals(rs.getString(1));
            }
            if (identity) {
                restartHistoryIds(statement);
            }
            for (String table : TABLES) {
                statement.execute("analyze " + table);
            }
        }
    }

    /** Creates the keys and indexes ({@link #CREATE_INDEXES}), then lets history ids continue after the loaded ones. */
    static void createIndexes(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String sql : CREATE_INDEXES) {
                execute(statement, sql);
            }
            restartHistoryIds(statement);
        }
    }

    /** Runs each statement on its own, naming the statement in the error. */
    static void execute(Statement statement, List<String> sqls) throws SQLException {
        for (String sql : sqls) {
            execute(statement, sql);
        }
    }

    private static void execute(Statement statement, String sql) throws SQLException {
        try {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new SQLException(e.getMessage() + " (SQLSTATE " + e.getSQLState() + ") in: " + sql, e.getSQLState(), e);
        }
    }

    /**
     * Restarts the identity of hist_id after the largest id loaded: {@code max(hist_id)} over every
     * shard (one aggregate, merged by a proxy), then DDL that a proxy sends to every actual table.
     */
    private static void restartHistoryIds(Statement statement) throws SQLException {
        long max;
        try (ResultSet rs = statement.executeQuery("SELECT max(hist_id) FROM bmsql_history")) {
            rs.next();
            max = rs.getLong(1);
        }
        execute(statement, "alter table bmsql_history alter column hist_id restart with " + (max + 1));
    }
}
