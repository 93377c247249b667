package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus endpoint (server.yaml's {@code metrics-port}) scraped while pgbench runs through the proxy: the
 * counts of statements, transactions, backend round trips and requests move by what the run made; errors are counted
 * by SQLSTATE; the sharded database's route is timed; the pools' gauges are there.
 */
final class MetricsEndpointTest {

    private static final Path PGBENCH = Path.of("/usr/bin/pgbench");

    private static OpsProxy ops;
    private static int metricsPort;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        if (!Files.isExecutable(PGBENCH)) {
            throw new AssertionError(PGBENCH + " is not installed: apt-get install postgresql-client");
        }
        try (ServerSocket free = new ServerSocket(0)) {
            metricsPort = free.getLocalPort();
        }
        ops = OpsProxy.start("  metrics-port: " + metricsPort + "\n");
    }

    @AfterAll
    static void stop() throws Exception {
        if (ops != null) {
            ops.close();
        }
    }

    private static String scrape() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", response.headers().firstValue("Content-Type").orElseThrow());
        return response.body();
    }

    /** The value of one sample ({@code name{labels}}), 0 when it is not there. */
    private static double value(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1));
            }
        }
        return 0;
    }

    private static int pgbench(List<String> arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(PGBENCH.toString(), "-h", "127.0.0.1", "-p",
                String.valueOf(ops.proxy.port()), "-U", "app"));
        command.addAll(arguments);
        command.add(OpsProxy.POOLED);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().keySet().removeIf(key -> key.startsWith("PG"));
        builder.environment().put("PGPASSWORD", "app");
        builder.redirectErrorStream(true);
        builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process process = builder.start();
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("pgbench did not finish: " + arguments);
        }
        return process.exitValue();
    }

    @Test
    void aPgbenchRunMovesTheCountsByWhatItMade() throws Exception {
        assertEquals(0, pgbench(List.of("-i", "-s", "1", "-q")));
        String before = scrape();
        AtomicInteger scrapes = new AtomicInteger();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread scraper = Thread.ofPlatform().start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    scrape();
                    scrapes.incrementAndGet();
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        int transactions = 2 * 300;
        assertEquals(0, pgbench(List.of("-n", "-S", "-M", "prepared", "-c", "2", "-t", "300")));
        scraper.interrupt();
        scraper.join();
        assertEquals(null, failed.get());
        assertTrue(scrapes.get() > 0, "scraped during the run");
        String after = scrape();
        String db = "database=\"" + OpsProxy.POOLED + "\"";
        // pgbench -S: one SELECT per transaction, each its own request (Bind, Execute, Sync), and a few of pgbench's
        // own at start (the scale, read from pgbench_branches).
        double selects = value(after, "ashlar_statements_total{" + db + ",kind=\"select\"}")
                - value(before, "ashlar_statements_total{" + db + ",kind=\"select\"}");
        assertTrue(selects >= transactions && selects <= transactions + 4, "selects " + selects);
        double ended = value(after, "ashlar_transactions_total{" + db + "}") - value(before, "ashlar_transactions_total{" + db + "}");
        assertTrue(ended >= transactions && ended <= transactions + 10, "transactions " + ended);
        double requests = value(after, "ashlar_request_duration_seconds_count{" + db + "}")
                - value(before, "ashlar_request_duration_seconds_count{" + db + "}");
        assertTrue(requests >= transactions && requests <= transactions + 10, "requests " + requests);
        String pool = db + ",data_source=\"ds_0\"";
        double roundTrips = value(after, "ashlar_backend_queries_total{" + pool + "}") - value(before, "ashlar_backend_queries_total{" + pool + "}");
        assertTrue(roundTrips >= transactions && roundTrips <= transactions + 10, "backend round trips " + roundTrips);
        // Requests sent while another was being answered are timed from the first: at most one time per round trip.
        double timed = value(after, "ashlar_backend_duration_seconds_count{" + pool + "}")
                - value(before, "ashlar_backend_duration_seconds_count{" + pool + "}");
        assertTrue(timed >= transactions && timed <= roundTrips, "backend times " + timed);
        assertTrue(value(after, "ashlar_client_received_bytes_total{" + db + "}") > value(before, "ashlar_client_received_bytes_total{" + db + "}"));
        assertTrue(value(after, "ashlar_client_sent_bytes_total{" + db + "}") > value(before, "ashlar_client_sent_bytes_total{" + db + "}"));
        assertTrue(after.contains("\nashlar_request_duration_seconds_bucket{" + db + ",le=\"+Inf\"} "), after);
        assertTrue(after.contains("\n# TYPE ashlar_pool_connections gauge\n"), after);
        assertTrue(after.contains("\nashlar_pool_connections{" + pool + ",state=\"idle\"} "), after);
        assertEquals(50, value(after, "ashlar_pool_max_connections{" + pool + "}"));
        assertEquals(1, value(after, "ashlar_data_source_up{" + pool + "}"));
    }

    @Test
    void errorsByStateShardedStatementsAndClientsAreCounted() throws Exception {
        String before = scrape();
        String sharded = "database=\"" + OpsProxy.SHARDED + "\"";
        try (Connection c = ops.connect(OpsProxy.SHARDED, "app", "extended"); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (101, 1, 'new'), (102, 2, 'new')");
            s.executeQuery("SELECT * FROM t_order ORDER BY order_id").close();
            s.executeUpdate("DELETE FROM t_order WHERE order_id IN (101, 102)");
            try {
                s.executeQuery("SELECT * FROM no_such_table");
            } catch (SQLException expected) {
                assertEquals("42P01", expected.getSQLState());
            }
            String during = scrape();
            assertEquals(1, value(during, "ashlar_client_connections{" + sharded + "}"));
            String after = during;
            for (Map.Entry<String, Integer> each : Map.of("insert", 1, "select", 1, "delete", 1).entrySet()) {
                String series = "ashlar_statements_total{" + sharded + ",kind=\"" + each.getKey() + "\"}";
                assertEquals((double) each.getValue(), value(after, series) - value(before, series), series);
            }
            assertEquals(1, value(after, "ashlar_errors_total{" + sharded + ",sqlstate=\"42P01\"}")
                    - value(before, "ashlar_errors_total{" + sharded + ",sqlstate=\"42P01\"}"));
            assertTrue(value(after, "ashlar_route_duration_seconds_count{" + sharded + "}")
                    - value(before, "ashlar_route_duration_seconds_count{" + sharded + "}") >= 3);
            assertTrue(value(after, "ashlar_parse_duration_seconds_count{" + sharded + "}")
                    - value(before, "ashlar_parse_duration_seconds_count{" + sharded + "}") >= 3);
        }
        // The proxy counts the client out when it sees the connection end, which the client's close does not wait for.
        double clients = value(scrape(), "ashlar_client_connections{" + sharded + "}");
        for (long deadline = System.nanoTime() + 10_000_000_000L; clients != 0 && System.nanoTime() < deadline; ) {
            Thread.sleep(20);
            clients = value(scrape(), "ashlar_client_connections{" + sharded + "}");
        }
        assertEquals(0, clients);
    }

    @Test
    void onlyGetAndHeadAreAnswered() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort
                + "/metrics")).POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, response.statusCode());
        assertTrue(new String(scrape().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).startsWith("# HELP "));
    }
}
