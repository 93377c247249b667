package io.ashlar.bench.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Issue 12's many-clients check, the load side ({@code benchmarks/many-clients.sh} runs it and
 * watches the proxy): {@code --idle} connections log in and then stay idle, {@code --active} more
 * log in and run {@code SELECT 1} in a loop (simple query protocol) for {@code --seconds}, all at
 * once, from one thread over non-blocking sockets (so the driver itself stays small beside the
 * proxy). Then the active clients stop, every idle client runs one {@code SELECT 1} (it is still
 * served), and every connection sends Terminate.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.ashlar.bench.load.ManyClients --port 27453 \
 *     --database bench --user root --password root --idle 10000 --active 1000 --seconds 60
 * </pre>
 *
 * <p>Prints progress to stderr, phase lines ({@code PHASE name t=seconds}) and one {@code RESULT}
 * line of key=value pairs to stdout; exits 0 only if every client logged in, every active client
 * had queries answered, every idle client answered its final query, and no query failed.
 */
public final class ManyClients {

    private static final byte[] SELECT_1 = PgLogin.query("SELECT 1");
    private static final byte[] TERMINATE = PgLogin.terminate();

    private enum State { CONNECTING, LOGGING_IN, READY, QUERYING, FAILED, CLOSED }

    private final Map<String, String> options;
    private final InetSocketAddress address;
    private final String user;
    private final String password;
    private final String database;
    private final Selector selector;
    private final List<Client> clients = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private final List<String> errors = new ArrayList<>();
    private int loggingIn;
    private int loggedInIdle;
    private int loggedInActive;
    private int failed;
    private long queryErrors;
    private long answeredTotal;
    private int idleAnswered;
    private boolean activeRunning;

    private ManyClients(Map<String, String> options) throws IOException {
        this.options = options;
        this.address = new InetSocketAddress(option("host", "127.0.0.1"), Integer.parseInt(option("port", "5432")));
        this.user = option("user", "root");
        this.password = option("password", "root");
        this.database = option("database", "bench");
        this.selector = Selector.open();
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        System.exit(new ManyClients(options).run() ? 0 : 1);
    }

    private String option(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    private boolean run() throws IOException {
        int idle = Integer.parseInt(option("idle", "10000"));
        int active = Integer.parseInt(option("active", "1000"));
        int seconds = Integer.parseInt(option("seconds", "60"));
        int concurrentLogins = Integer.parseInt(option("concurrent-logins", "200"));
        long loginTimeout = TimeUnit.SECONDS.toNanos(Integer.parseInt(option("login-timeout", "600")));

        phase("login-idle");
        openAll(idle, false, concurrentLogins, loginTimeout);
        long idleLoggedIn = System.nanoTime();
        System.err.printf(Locale.ROOT, "many-clients: %d/%d idle clients logged in (%.1f s)%n", loggedInIdle, idle, seconds(startNanos, idleLoggedIn));

        phase("login-active");
        activeRunning = true;
        openAll(active, true, concurrentLogins, loginTimeout);
        phase("all-connected");
        long runStart = System.nanoTime();
        long answeredAtStart = answeredTotal;
        long deadline = runStart + TimeUnit.SECONDS.toNanos(seconds);
        long nextReport = runStart + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            poll(100);
            if (System.nanoTime() >= nextReport) {
                nextReport += TimeUnit.SECONDS.toNanos(5);
                progress();
            }
        }
        long answeredInWindow = answeredTotal - answeredAtStart;
        double windowSeconds = seconds(runStart, System.nanoTime());
        phase("drain");
        activeRunning = false;
        boolean drained = waitUntil(() -> count(State.QUERYING) == 0, TimeUnit.SECONDS.toNanos(60));

        phase("idle-check");
        for (Client each : clients) {
            if (!each.active && each.state == State.READY) {
                each.state = State.QUERYING;
                each.write(SELECT_1);
            }
        }
        boolean idleChecked = waitUntil(() -> count(State.QUERYING) == 0, TimeUnit.SECONDS.toNanos(300));

        phase("close");
        int activeAnswered = 0;
        long minAnswered = Long.MAX_VALUE;
        for (Client each : clients) {
            if (each.active) {
                if (each.answered > 0) {
                    activeAnswered++;
                }
                minAnswered = Math.min(minAnswered, each.answered);
            }
            each.close(true);
        }
        poll(200);
        long[] logins = clients.stream().filter(c -> c.loginNanos > 0).mapToLong(c -> c.loginNanos).sorted().toArray();
        boolean result = loggedInIdle == idle && loggedInActive == active && activeAnswered == active && idleAnswered == idle
                && failed == 0 && queryErrors == 0 && drained && idleChecked;
        System.out.printf(Locale.ROOT, "RESULT %s idle_logged_in=%d/%d active_logged_in=%d/%d active_answered=%d/%d"
                        + " idle_answered=%d/%d failed_connections=%d query_errors=%d queries_in_window=%d window_s=%.1f qps=%.0f"
                        + " min_queries_per_active=%d login_p50_ms=%.1f login_p99_ms=%.1f login_max_ms=%.1f%n",
                result ? "PASS" : "FAIL", loggedInIdle, idle, loggedInActive, active, activeAnswered, active, idleAnswered, idle,
                failed, queryErrors, answeredInWindow, windowSeconds, answeredInWindow / windowSeconds,
                minAnswered == Long.MAX_VALUE ? 0 : minAnswered, percentileMillis(logins, 0.50), percentileMillis(logins, 0.99),
                percentileMillis(logins, 1.0));
        for (String each : errors) {
            System.out.println("ERROR " + each);
        }
        return result;
    }

    private void phase(String name) {
        System.out.printf(Locale.ROOT, "PHASE %s t=%.1f%n", name, seconds(startNanos, System.nanoTime()));
        System.out.flush();
    }

    /** Opens {@code n} clients, at most {@code concurrent} logging in at a time, and waits for their logins. */
    private void openAll(int n, boolean active, int concurrent, long timeout) throws IOException {
        long deadline = System.nanoTime() + timeout;
        long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int opened = 0;
        while ((opened < n || loggingIn > 0) && System.nanoTime() < deadline) {
            while (opened < n && loggingIn < concurrent) {
                open(active);
                opened++;
            }
            poll(50);
            if (System.nanoTime() >= nextReport) {
                nextReport += TimeUnit.SECONDS.toNanos(5);
                progress();
            }
        }
        if (loggingIn > 0) {
            errors.add(loggingIn + " logins still pending after " + TimeUnit.NANOSECONDS.toSeconds(timeout) + " s");
        }
    }

    private void open(boolean active) throws IOException {
        Client client = new Client(clients.size(), active);
        clients.add(client);
        loggingIn++;
        client.startNanos = System.nanoTime();
        SocketChannel channel = SocketChannel.open();
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        client.channel = channel;
        client.state = State.CONNECTING;
        try {
            if (channel.connect(address)) {
                client.key = channel.register(selector, SelectionKey.OP_READ, client);
                client.connected();
            } else {
                client.key = channel.register(selector, SelectionKey.OP_CONNECT, client);
            }
        } catch (IOException e) {
            client.fail("connect: " + e.getMessage());
        }
    }

    private boolean waitUntil(java.util.function.BooleanSupplier done, long timeout) throws IOException {
        long deadline = System.nanoTime() + timeout;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() >= deadline) {
                errors.add("timed out waiting: " + count(State.QUERYING) + " clients still waiting for an answer");
                return false;
            }
            poll(50);
        }
        return true;
    }

    private int count(State state) {
        int result = 0;
        for (Client each : clients) {
            if (each.state == state) {
                result++;
            }
        }
        return result;
    }

    private void progress() {
        System.err.printf(Locale.ROOT, "many-clients: t=%.0fs idle=%d active=%d logging_in=%d failed=%d answered=%d query_errors=%d%n",
                seconds(startNanos, System.nanoTime()), loggedInIdle, loggedInActive, loggingIn, failed, answeredTotal, queryErrors);
    }

    private void poll(long millis) throws IOException {
        selector.select(millis);
        var keys = selector.selectedKeys();
        for (SelectionKey key : keys) {
            Client client = (Client) key.attachment();
            try {
                if (!key.isValid()) {
                    continue;
                }
                if (key.isConnectable()) {
                    client.channel.finishConnect();
                    key.interestOps(SelectionKey.OP_READ);
                    client.connected();
                }
                if (key.isValid() && key.isWritable()) {
                    client.flush();
                }
                if (key.isValid() && key.isReadable()) {
                    client.read();
                }
            } catch (IOException | RuntimeException e) {
                client.fail(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        keys.clear();
    }

    private static double seconds(long from, long to) {
        return (to - from) / 1e9;
    }

    private static double percentileMillis(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(sorted.length * p) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }

    /** One connection and where it stands in the protocol. */
    private final class Client {
        final int id;
        final boolean active;
        SocketChannel channel;
        SelectionKey key;
        State state;
        ByteBuffer in = ByteBuffer.allocate(2048);
        ByteBuffer out;
        long startNanos;
        long loginNanos;
        long answered;

        Client(int id, boolean active) {
            this.id = id;
            this.active = active;
        }

        void connected() {
            state = State.LOGGING_IN;
            write(PgLogin.startup(user, database, "many-clients"));
        }

        void write(byte[] message) {
            write(ByteBuffer.wrap(message));
        }

        void write(ByteBuffer message) {
            if (out != null) {
                ByteBuffer joined = ByteBuffer.allocate(out.remaining() + message.remaining());
                joined.put(out).put(message).flip();
                out = joined;
                return;
            }
            try {
                channel.write(message);
            } catch (IOException e) {
                fail("write: " + e.getMessage());
                return;
            }
            if (message.hasRemaining()) {
                out = message;
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
            }
        }

        void flush() throws IOException {
            channel.write(out);
            if (!out.hasRemaining()) {
                out = null;
                key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
            }
        }

        void read() throws IOException {
            int n = channel.read(in);
            if (n < 0) {
                fail("the server closed the connection");
                return;
            }
            in.flip();
            while (in.remaining() >= 5 && state != State.FAILED && state != State.CLOSED) {
                int start = in.position();
                byte type = in.get(start);
                int length = in.getInt(start + 1);
                if (in.remaining() < 1 + length) {
                    if (in.capacity() < 1 + length) {
                        ByteBuffer bigger = ByteBuffer.allocate(1 + length);
                        bigger.put(in);
                        in = bigger;
                        return;
                    }
                    break;
                }
                handle(type, start + 5, length - 4);
                in.position(start + 1 + length);
            }
            in.compact();
        }

        private void handle(byte type, int body, int length) {
            switch (type) {
                case 'R' -> {
                    int method = in.getInt(body);
                    if (method != PgLogin.AUTH_OK) {
                        byte[] salt = new byte[4];
                        if (method == PgLogin.AUTH_MD5) {
                            in.get(body + 4, salt);
                        }
                        try {
                            write(PgLogin.password(method, salt, user, password));
                        } catch (IllegalStateException e) {
                            fail(e.getMessage());
                        }
                    }
                }
                case 'E' -> {
                    byte[] bytes = new byte[length];
                    in.get(body, bytes);
                    String text = PgLogin.errorText(bytes, 0, length);
                    if (state == State.LOGGING_IN) {
                        fail("login refused: " + text);
                    } else {
                        queryErrors++;
                        if (errors.size() < 20) {
                            errors.add("client " + id + ": " + text);
                        }
                    }
                }
                case 'Z' -> readyForQuery();
                default -> {
                    // ParameterStatus, BackendKeyData, RowDescription, DataRow, CommandComplete, notices
                }
            }
        }

        private void readyForQuery() {
            if (state == State.LOGGING_IN) {
                loginNanos = System.nanoTime() - startNanos;
                loggingIn--;
                if (active) {
                    loggedInActive++;
                } else {
                    loggedInIdle++;
                }
                state = State.READY;
            } else if (state == State.QUERYING) {
                answered++;
                answeredTotal++;
                if (!active) {
                    idleAnswered++;
                }
                state = State.READY;
            }
            if (active && activeRunning && state == State.READY) {
                state = State.QUERYING;
                write(SELECT_1);
            }
        }

        void fail(String why) {
            if (state == State.FAILED || state == State.CLOSED) {
                return;
            }
            if (state == State.CONNECTING || state == State.LOGGING_IN) {
                loggingIn--;
            }
            state = State.FAILED;
            failed++;
            if (errors.size() < 20) {
                errors.add("client " + id + (active ? " (active)" : " (idle)") + ": " + why);
            }
            closeQuietly();
        }

        void close(boolean terminate) {
            if (state == State.FAILED || state == State.CLOSED) {
                return;
            }
            if (terminate && state == State.READY && out == null) {
                try {
                    channel.write(ByteBuffer.wrap(TERMINATE));
                } catch (IOException e) {
                    // closing anyway
                }
            }
            state = State.CLOSED;
            closeQuietly();
        }

        private void closeQuietly() {
            try {
                if (key != null) {
                    key.cancel();
                }
                channel.close();
            } catch (IOException e) {
                // nothing left to do with it
            }
        }
    }
}
