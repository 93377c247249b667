package io.ashlar.bootstrap.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The proxy starts while some of its data sources cannot be used: a port nobody listens on, a wrong password, a
 * database that does not exist, TLS the server does not speak, a server that accepts the connection and never
 * answers. It starts at once all the same (it took about 60 s), logs one line per data source with the real reason
 * (it gave the reason inside a stack trace), and answers a statement that needs one of them with 08006 at once,
 * naming it and the reason (after a 30 s wait).
 */
final class BrokenDataSourceStartTest {

    private static final long CHECK_TIMEOUT_MILLIS = 2_000;

    @Test
    void theProxyStartsAtOnceAndSaysWhyEachDataSourceIsDown() throws Exception {
        Path hba = Files.createTempFile("broken-hba", ".conf");
        hba.toFile().deleteOnExit();
        Files.writeString(hba, String.join("\n", "host all scram_user 127.0.0.1/32 scram-sha-256",
                "host all all 127.0.0.1/32 trust", "local all all trust", ""));
        // A port held by a socket that is bound and does not listen: connecting to it is refused, and nothing else
        // (a server another build starts meanwhile) can take it, as it could a port merely found free.
        try (java.net.Socket refused = new java.net.Socket();
                EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("hba_file", hba.toString()).start();
                ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            refused.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int refusedPort = refused.getLocalPort();
            try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                s.execute("SET password_encryption = 'scram-sha-256'");
                s.execute("CREATE ROLE scram_user LOGIN PASSWORD 'right'");
            }
            String server = "127.0.0.1:" + postgres.getPort();
            // name -> {url, user, password, what its log line and its statements' errors must say}
            Map<String, String[]> broken = new LinkedHashMap<>();
            broken.put("refused", new String[] {"jdbc:postgresql://127.0.0.1:" + refusedPort + "/postgres", "postgres", "",
                    "connection refused"});
            broken.put("wrong_password", new String[] {"jdbc:postgresql://" + server + "/postgres", "scram_user", "wrong",
                    "password authentication failed for user \"scram_user\""});
            broken.put("no_database", new String[] {"jdbc:postgresql://" + server + "/no_such_database", "postgres", "",
                    "database \"no_such_database\" does not exist"});
            broken.put("no_tls", new String[] {"jdbc:postgresql://" + server + "/postgres?sslmode=require", "postgres", "",
                    "the server does not support SSL"});
            broken.put("silent", new String[] {"jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/postgres", "postgres", "",
                    "timed out after " + CHECK_TIMEOUT_MILLIS + " ms"});
            Map<String, String> files = new LinkedHashMap<>();
            files.put("server.yaml", "authority:\n  users:\n    - user: root@%\n      password: root\n");
            files.put("config-healthy.yaml", database("healthy_db", "healthy", "jdbc:postgresql://" + server + "/postgres", "postgres", ""));
            for (Map.Entry<String, String[]> each : broken.entrySet()) {
                String[] v = each.getValue();
                files.put("config-" + each.getKey() + ".yaml", database(each.getKey() + "_db", each.getKey(), v[0], v[1], v[2]));
            }
            try (ProxyProcess proxy = ProxyProcess.start(files, List.of("-Xmx256m"))) {
                System.out.println("BrokenDataSourceStartTest: ready after " + proxy.readyMillis() + " ms");
                List<String> log = proxy.lines();
                for (Map.Entry<String, String[]> each : broken.entrySet()) {
                    // One line says it is down and why; a later one only if a retry fails for another reason (a
                    // login that outlasts its deadline on a loaded machine: "is still down: timed out").
                    List<String> said = log.stream().filter(line -> line.contains("data source " + each.getKey() + " (")).toList();
                    System.out.println("BrokenDataSourceStartTest: " + said);
                    assertEquals(1, said.size(), () -> "one line for data source " + each.getKey() + ":\n" + String.join("\n", log));
                    assertTrue(said.get(0).contains("is down: ") && said.get(0).contains(each.getValue()[3]), said::toString);
                }
                assertTrue(log.stream().noneMatch(line -> line.startsWith("\tat ") || line.contains("Exception")),
                        () -> "a stack trace or an exception's name in the log:\n" + String.join("\n", log));
                // Started with a server that never answers: its check's deadline, not the 30 s connection timeout (the
                // bound is generous: the JVM's own start takes seconds on a loaded machine).
                assertTrue(proxy.readyMillis() < CHECK_TIMEOUT_MILLIS + 20_000, () -> "ready after " + proxy.readyMillis() + " ms");
                for (Map.Entry<String, String[]> each : broken.entrySet()) {
                    long started = System.nanoTime();
                    SQLException failure = null;
                    try (Connection c = proxy.connect(each.getKey() + "_db"); Statement s = c.createStatement()) {
                        s.execute("SELECT 1");
                    } catch (SQLException e) {
                        failure = e;
                    }
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    SQLException seen = failure;
                    assertTrue(seen != null, each.getKey() + ": the statement succeeded");
                    assertEquals("08006", seen.getSQLState(), seen::getMessage);
                    assertTrue(seen.getMessage().contains(each.getKey()) && seen.getMessage().contains(each.getValue()[3]),
                            seen::getMessage);
                    // The client's own login to the proxy included; it waited the 30 s connection timeout.
                    assertTrue(millis < 10_000, () -> each.getKey() + ": failed after " + millis + " ms");
                }
                try (Connection c = proxy.connect("healthy_db"); Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT 42")) {
                    rs.next();
                    assertEquals(42, rs.getInt(1));
                }
            }
        }
    }

    /** The silent data source gets a short check deadline (it bounds the start); the others keep the default. */
    private static String database(String name, String dataSource, String url, String user, String password) {
        return "databaseName: " + name + "\ndataSources:\n  " + dataSource + ":\n    url: \"" + url + "\"\n    username: " + user
                + "\n    password: \"" + password + "\"\n"
                + (dataSource.equals("silent") ? "    healthCheckTimeoutMilliseconds: " + CHECK_TIMEOUT_MILLIS + "\n" : "");
    }
}
