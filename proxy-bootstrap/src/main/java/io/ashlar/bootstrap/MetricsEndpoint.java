package io.ashlar.bootstrap;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.metrics.DatabaseMetrics;
import io.ashlar.backend.metrics.SessionCounters;
import io.ashlar.backend.pg.LinkPool;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.frontend.admin.ClientInfo;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The Prometheus endpoint: {@code GET /metrics} on server.yaml's {@code metrics-port}, in the text exposition format
 * (0.0.4), written by hand: a dozen families of counters, gauges and histograms need no library, and the counting
 * itself lives where the proxy works (per event loop, in plain fields: {@link SessionCounters}, the pools' stats).
 * The JDK's own HTTP server answers on a thread of its own, off the event loops; a scrape reads the counters while
 * they change, as Prometheus expects of counters.
 *
 * @see <a href="https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format">Prometheus text format</a>
 */
final class MetricsEndpoint implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Listens on {@code address:port} ({@code *} or {@code 0.0.0.0}: every interface).
     *
     * @throws IOException when the port cannot be bound
     */
    static MetricsEndpoint start(String address, int port, Supplier<Map<String, LogicalDatabase>> databases,
                                 Supplier<List<ClientInfo>> clients) throws IOException {
        InetSocketAddress bind = address.equals("*") ? new InetSocketAddress(port) : new InetSocketAddress(address, port);
        HttpServer server = HttpServer.create(bind, 16);
        ExecutorService executor = Executors.newSingleThreadExecutor(task -> {
            Thread result = new Thread(task, "ashlar-metrics");
            result.setDaemon(true);
            return result;
        });
        server.setExecutor(executor);
        server.createContext("/metrics", exchange -> answer(exchange, databases, clients));
        server.start();
        return new MetricsEndpoint(server, executor);
    }

    /** The port listened on (the one asked for, or the one the system chose for 0). */
    int port() {
        return server.getAddress().getPort();
    }

    private static void answer(HttpExchange exchange, Supplier<Map<String, LogicalDatabase>> databases,
                               Supplier<List<ClientInfo>> clients) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = render(databases.get(), clients.get()).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, exchange.getRequestMethod().equals("HEAD") ? -1 : body.length);
            if (!exchange.getRequestMethod().equals("HEAD")) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    /** The exposition of every family, by logical database (and data source). */
    static String render(Map<String, LogicalDatabase> databases, Collection<ClientInfo> clients) {
        StringBuilder out = new StringBuilder(8192);
        Map<String, Integer> connected = new TreeMap<>();
        for (String each : databases.keySet()) {
            connected.put(each, 0);
        }
        for (ClientInfo each : clients) {
            connected.merge(each.database(), 1, Integer::sum);
        }
        family(out, "ashlar_client_connections", "gauge", "Clients logged in now.");
        connected.forEach((database, count) -> sample(out, "ashlar_client_connections", label("database", database), count));

        Map<String, DatabaseMetrics.Totals> totals = new TreeMap<>();
        databases.forEach((name, database) -> {
            DatabaseMetrics metrics = database.metrics();
            if (metrics != null) {
                totals.put(name, metrics.totals());
            }
        });
        family(out, "ashlar_statements_total", "counter", "Statements the clients ran, by the kind their command tag names.");
        totals.forEach((database, each) -> {
            for (SessionCounters.Kind kind : SessionCounters.Kind.values()) {
                sample(out, "ashlar_statements_total", label("database", database) + "," + label("kind", kind.label()),
                        each.statements[kind.ordinal()]);
            }
        });
        family(out, "ashlar_transactions_total", "counter",
                "Transactions the clients ended (an autocommit request, a COMMIT or ROLLBACK).");
        totals.forEach((database, each) -> sample(out, "ashlar_transactions_total", label("database", database), each.transactions));
        family(out, "ashlar_statements_on_event_loop_total", "counter",
                "Statements of one shard a sharded session's event loop ran itself, without the session's thread.");
        totals.forEach((database, each) -> sample(out, "ashlar_statements_on_event_loop_total", label("database", database), each.onLoop));
        family(out, "ashlar_errors_total", "counter", "Errors sent to clients, by SQLSTATE.");
        totals.forEach((database, each) -> each.errors.forEach((state, count) ->
                sample(out, "ashlar_errors_total", label("database", database) + "," + label("sqlstate", state), count)));
        family(out, "ashlar_client_received_bytes_total", "counter", "Bytes received from clients.");
        totals.forEach((database, each) -> sample(out, "ashlar_client_received_bytes_total", label("database", database),
                each.bytesReceived));
        family(out, "ashlar_client_sent_bytes_total", "counter", "Bytes sent to clients.");
        totals.forEach((database, each) -> sample(out, "ashlar_client_sent_bytes_total", label("database", database),
                each.bytesSent));
        family(out, "ashlar_request_duration_seconds", "histogram",
                "From a request's first message (a query, or extended-protocol messages up to Sync) to its ReadyForQuery.");
        totals.forEach((database, each) -> each.requests.write(out, "ashlar_request_duration_seconds", label("database", database)));
        family(out, "ashlar_parse_duration_seconds", "histogram",
                "A sharded statement's parse: its text lexed and split, its analysis from the plan cache or made.");
        totals.forEach((database, each) -> each.parse.write(out, "ashlar_parse_duration_seconds", label("database", database)));
        family(out, "ashlar_route_duration_seconds", "histogram",
                "A sharded statement's plan (from the plan cache), route and rewrite.");
        totals.forEach((database, each) -> each.route.write(out, "ashlar_route_duration_seconds", label("database", database)));
        Map<String, LogicalDatabase> byName = new TreeMap<>(databases);
        family(out, "ashlar_statement_analyses_total", "counter",
                "Statement texts parsed and analysed: neither the plan cache nor a known shape of theirs served them.");
        byName.forEach((name, database) -> sample(out, "ashlar_statement_analyses_total", label("database", name),
                database.plans().analyses()));
        family(out, "ashlar_statement_rebinds_total", "counter",
                "Simple queries differing from a known text only in the constants compared with columns, analysed from "
                        + "that text's analysis without parsing.");
        byName.forEach((name, database) -> sample(out, "ashlar_statement_rebinds_total", label("database", name),
                database.plans().rebinds()));

        family(out, "ashlar_backend_duration_seconds", "histogram",
                "From a request's first byte sent to a data source to its ReadyForQuery.");
        forEachPool(databases, (labels, pool) -> pool.queryTimes().write(out, "ashlar_backend_duration_seconds", labels));
        poolFamilies(out, databases);
        return out.toString();
    }

    private static void poolFamilies(StringBuilder out, Map<String, LogicalDatabase> databases) {
        Map<String, LinkPool.Usage> usages = new java.util.LinkedHashMap<>();
        Map<String, BackendDataSource> sources = new java.util.LinkedHashMap<>();
        forEachPool(databases, (labels, pool) -> usages.put(labels, pool.usage()));
        databases.forEach((name, database) -> {
            for (BackendDataSource each : database.dataSources()) {
                sources.put(label("database", name) + "," + label("data_source", each.name()), each);
            }
        });
        family(out, "ashlar_data_source_up", "gauge", "1 while the data source is up, 0 while it is down (its statements fail at once).");
        sources.forEach((labels, source) -> sample(out, "ashlar_data_source_up", labels, source.health().state().up() ? 1 : 0));
        family(out, "ashlar_pool_connections", "gauge", "Backend connections of a data source now, by state.");
        usages.forEach((labels, usage) -> {
            sample(out, "ashlar_pool_connections", labels + "," + label("state", "active"), usage.active());
            sample(out, "ashlar_pool_connections", labels + "," + label("state", "idle"), usage.idle());
            sample(out, "ashlar_pool_connections", labels + "," + label("state", "login"), usage.opening());
        });
        family(out, "ashlar_pool_max_connections", "gauge", "The data source's maxPoolSize.");
        sources.forEach((labels, source) -> sample(out, "ashlar_pool_max_connections", labels, source.config().maxPoolSize()));
        family(out, "ashlar_pool_waiting_clients", "gauge", "Sessions waiting for a connection of the data source now.");
        usages.forEach((labels, usage) -> sample(out, "ashlar_pool_waiting_clients", labels, usage.waiting()));
        family(out, "ashlar_pool_max_wait_seconds", "gauge", "How long the longest-waiting session has waited.");
        usages.forEach((labels, usage) -> out.append("ashlar_pool_max_wait_seconds{").append(labels).append("} ")
                .append(usage.maxWaitMicros() / 1e6).append('\n'));
        family(out, "ashlar_pool_wait_seconds_total", "counter", "Time sessions waited for a connection, summed.");
        usages.forEach((labels, usage) -> out.append("ashlar_pool_wait_seconds_total{").append(labels).append("} ")
                .append(usage.stats().waitMicros() / 1e6).append('\n'));
        family(out, "ashlar_pool_waits_total", "counter", "Borrows that had to wait (for a connection opened or freed).");
        usages.forEach((labels, usage) -> sample(out, "ashlar_pool_waits_total", labels, usage.stats().waits()));
        family(out, "ashlar_pool_opened_connections_total", "counter", "Backend connections opened.");
        sources.forEach((labels, source) -> sample(out, "ashlar_pool_opened_connections_total", labels, source.links().opened()));
        family(out, "ashlar_backend_queries_total", "counter", "Round trips to the data source (ReadyForQuery received).");
        usages.forEach((labels, usage) -> sample(out, "ashlar_backend_queries_total", labels, usage.stats().queries()));
        family(out, "ashlar_backend_transactions_total", "counter", "Transactions the data source ended.");
        usages.forEach((labels, usage) -> sample(out, "ashlar_backend_transactions_total", labels, usage.stats().transactions()));
        family(out, "ashlar_backend_sent_bytes_total", "counter", "Bytes sent to the data source.");
        usages.forEach((labels, usage) -> sample(out, "ashlar_backend_sent_bytes_total", labels, usage.stats().bytesSent()));
        family(out, "ashlar_backend_received_bytes_total", "counter", "Bytes received from the data source.");
        usages.forEach((labels, usage) -> sample(out, "ashlar_backend_received_bytes_total", labels,
                usage.stats().bytesReceived()));
    }

    private static void forEachPool(Map<String, LogicalDatabase> databases, java.util.function.BiConsumer<String, LinkPool> action) {
        databases.forEach((name, database) -> {
            for (BackendDataSource each : database.dataSources()) {
                action.accept(label("database", name) + "," + label("data_source", each.name()), each.links());
            }
        });
    }

    private static void family(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder out, String name, String labels, long value) {
        out.append(name).append('{').append(labels).append("} ").append(value).append('\n');
    }

    /** {@code name="value"}, the value escaped as the text format asks (backslash, quote, newline). */
    static String label(String name, String value) {
        StringBuilder result = new StringBuilder(name.length() + value.length() + 3).append(name).append("=\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> result.append("\\\\");
                case '"' -> result.append("\\\"");
                case '\n' -> result.append("\\n");
                default -> result.append(c);
            }
        }
        return result.append('"').toString();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
