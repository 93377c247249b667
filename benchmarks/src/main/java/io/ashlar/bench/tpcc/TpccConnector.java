package io.ashlar.bench.tpcc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Where the driver connects: a pgjdbc URL (to PostgreSQL directly or to Ashlar) with a user and a
 * password, and nothing else set, as BenchmarkSQL connects (driver defaults: extended protocol,
 * server-side prepare after 5 executions, text results).
 *
 * @param url      {@code jdbc:postgresql://host:port/database[?params]}
 * @param user     user name
 * @param password password, empty for none
 */
record TpccConnector(String url, String user, String password) {

    /** A new connection with autocommit off, as BenchmarkSQL's terminals and loader workers use. */
    Connection open() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        Connection result = DriverManager.getConnection(url, properties);
        try {
            result.setAutoCommit(false);
        } catch (SQLException e) {
            result.close();
            throw e;
        }
        return result;
    }
}
