package io.ashlar.bench.tpcc;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;

/**
 * Where the driver connects: a pgjdbc URL (to PostgreSQL directly or to Ashlar) with a user and a
 * password, and nothing else set, as BenchmarkSQL connects (driver defaults: extended protocol,
 * server-side prepare after 5 executions, text results).
 *
 * @param url      {@code jdbc:postgresql://host:port/database[?params]}
 * @param user     user name
 * @param password password, empty for none
 * @param driver   the driver to connect with, when not the one {@code DriverManager} finds for the URL:
 *                 BenchmarkSQL 5.0's own pgjdbc 9.3, loaded in a class loader of its own by a test
 */
record TpccConnector(String url, String user, String password, Optional<Driver> driver) {

    TpccConnector(String url, String user, String password) {
        this(url, user, password, Optional.empty());
    }

    /** A new connection with autocommit off, as BenchmarkSQL's terminals and loader workers use. */
    Connection open() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        Connection result = driver.isPresent() ? driver.get().connect(url, properties) : DriverManager.getConnection(url, properties);
        if (result == null) {
            throw new SQLException("the driver does not take the URL " + url, "08001");
        }
        try {
            result.setAutoCommit(false);
        } catch (SQLException e) {
            result.close();
            throw e;
        }
        return result;
    }
}
