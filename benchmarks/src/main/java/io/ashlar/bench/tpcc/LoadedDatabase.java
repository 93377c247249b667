package io.ashlar.bench.tpcc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What {@code bmsql_config} says about a loaded database: its warehouses, the load's C_LAST
 * constant and (this driver's extra row) the scale-down divisor. Read with BenchmarkSQL's own
 * query, {@code SELECT cfg_value FROM bmsql_config WHERE cfg_name = ?}.
 *
 * @param warehouses   the {@code warehouses} row
 * @param loadLastName the {@code nURandCLast} row
 * @param scaleDown    the {@code scaleDown} row, 1 when absent
 */
record LoadedDatabase(int warehouses, int loadLastName, int scaleDown) {

    static final String SELECT_CONFIG = "SELECT cfg_value FROM bmsql_config WHERE cfg_name = ?";

    /** Reads the rows on {@code connection} and ends its transaction. */
    static LoadedDatabase read(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(SELECT_CONFIG)) {
            String warehouses = value(statement, "warehouses");
            String lastName = value(statement, "nURandCLast");
            if (warehouses == null || lastName == null) {
                throw new SQLException("bmsql_config has no 'warehouses' or 'nURandCLast' row: load the database first (Tpcc load)");
            }
            String scaleDown = value(statement, TpccLoader.SCALE_DOWN_KEY);
            return new LoadedDatabase(Integer.parseInt(warehouses.trim()), Integer.parseInt(lastName.trim()),
                    scaleDown == null ? 1 : Integer.parseInt(scaleDown.trim()));
        } finally {
            connection.rollback();
        }
    }

    private static String value(PreparedStatement statement, String name) throws SQLException {
        statement.setString(1, name);
        try (ResultSet rs = statement.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
