package io.ashlar.bootstrap.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What pgjdbc sees of the logical database through the proxy, compared with what it sees of one PostgreSQL
 * database holding the same schema: session information answered for the proxy user and the logical database.
 */
final class CatalogJdbcTest {

    private static CatalogDatabases databases;

    @BeforeAll
    static void start() throws Exception {
        databases = CatalogDatabases.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (databases != null) {
            databases.close();
        }
    }

    @AfterEach
    void removeRows() throws SQLException {
        for (Connection each : List.of(databases.proxy(""), databases.reference(""))) {
            try (each; Statement statement = each.createStatement()) {
                statement.execute("DELETE FROM t_order_item");
                statement.execute("DELETE FROM t_order");
                statement.execute("DELETE FROM t_dict");
            }
        }
    }

    @Test
    void sessionInformationIsTheLogicalDatabasesAndTheProxyUsers() throws SQLException {
        String sql = "SELECT current_user, session_user, user, current_role, current_database(), current_catalog,"
                + " pg_catalog.current_database(), inet_server_port(), inet_server_addr()";
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("");
                Statement p = proxied.createStatement(); Statement r = reference.createStatement();
                ResultSet viaProxy = p.executeQuery(sql); ResultSet direct = r.executeQuery(sql)) {
            assertEquals(labels(direct.getMetaData()), labels(viaProxy.getMetaData()), "column names and types");
            viaProxy.next();
            List<String> values = new ArrayList<>();
            for (int i = 1; i <= 9; i++) {
                values.add(viaProxy.getString(i));
            }
            assertEquals(List.of("root", "root", "root", "root", "sharding_db", "sharding_db", "sharding_db",
                    String.valueOf(databases.proxyPort()), "127.0.0.1"), values);
        }
        try (Connection proxied = databases.proxy(""); PreparedStatement statement = proxied.prepareStatement(
                "SELECT count(*) FROM t_order WHERE note = current_user OR status = ?")) {
            statement.setString(1, "none");
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                assertEquals(0, rows.getInt(1));
            }
        }
    }

    private static List<String> labels(ResultSetMetaData metaData) throws SQLException {
        List<String> result = new ArrayList<>();
        for (int i = 1; i <= metaData.getColumnCount(); i++) {
            result.add(metaData.getColumnLabel(i) + " " + metaData.getColumnTypeName(i));
        }
        return result;
    }
}
