package io.ashlar.bench.load;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 12's stalled-reader check, the client side ({@code benchmarks/stalled-reader.sh} runs it
 * and samples the proxy's memory): runs one large query with the simple query protocol, reads
 * the first {@code --first-rows} rows, then stops reading its socket for {@code --stall-seconds}
 * (the kernel buffers fill and a proxy that keeps reading its backend must hold the rest in its
 * own memory), then reads on to ReadyForQuery. Time to first row is taken from the moment the
 * Query was written to the first DataRow read.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.ashlar.bench.load.StalledReader --port 27453 \
 *     --database bench --user root --password root --first-rows 1000 --stall-seconds 20 \
 *     --expect-rows 10000000
 * </pre>
 *
 * <p>Prints {@code FIRST_ROW}, {@code STALL_BEGIN}, {@code STALL_END} and a {@code RESULT}
 * line (key=value) to stdout, flushed as they happen so that a script can time its samples;
 * exits 0 only if the query completed with the expected row count and no error. With
 * {@code --first-row-only true} it closes the connection once the first row is in (a probe of
 * the time to first row alone).
 */
public final class StalledReader {

    private static final String DEFAULT_SQL = "SELECT g, repeat('x', 100) FROM generate_series(1, 10000000) g";

    private StalledReader() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        String host = options.getOrDefault("host", "127.0.0.1");
        int port = Integer.parseInt(options.getOrDefault("port", "5432"));
        String user = options.getOrDefault("user", "root");
        String password = options.getOrDefault("password", "root");
        String database = options.getOrDefault("database", "bench");
        String sql = options.getOrDefault("sql", DEFAULT_SQL);
        long firstRows = Long.parseLong(options.getOrDefault("first-rows", "1000"));
        long stallMillis = (long) (Double.parseDouble(options.getOrDefault("stall-seconds", "20")) * 1000);
        long expectRows = Long.parseLong(options.getOrDefault("expect-rows", "-1"));
        String label = options.getOrDefault("label", "run");
        boolean firstRowOnly = Boolean.parseBoolean(options.getOrDefault("first-row-only", "false"));
        // --ascending true: the first column must be an integer that grows by exactly 1 from row to row
        // (a merged ORDER BY across shards returns every row, in order)
        boolean ascending = Boolean.parseBoolean(options.getOrDefault("ascending", "false"));

        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 10_000);
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 65_536));
            login(in, out, user, password, database);

            long sent = System.nanoTime();
            out.write(PgLogin.query(sql));
            out.flush();
            long rows = 0;
            long firstRowNanos = -1;
            long stallBegin = 0;
            long stallEnd = 0;
            String error = "";
            long previous = Long.MIN_VALUE;
            byte[] body = new byte[256];
            while (true) {
                byte type = in.readByte();
                int length = in.readInt() - 4;
                if (body.length < length) {
                    body = new byte[length];
                }
                in.readFully(body, 0, length);
                if (type == 'D') {
                    rows++;
                    if (ascending && error.isEmpty()) {
                        int valueLength = ((body[2] & 0xff) << 24) | ((body[3] & 0xff) << 16) | ((body[4] & 0xff) << 8) | (body[5] & 0xff);
                        long value = Long.parseLong(new String(body, 6, valueLength, java.nio.charset.StandardCharsets.US_ASCII));
                        if (previous != Long.MIN_VALUE && value != previous + 1) {
                            error = "row " + rows + " has " + value + " after " + previous + ": out of order or missing rows";
                        }
                        previous = value;
                    }
                    if (rows == 1) {
                        firstRowNanos = System.nanoTime() - sent;
                        System.out.printf(Locale.ROOT, "FIRST_ROW %s ms=%.1f%n", label, firstRowNanos / 1e6);
                        System.out.flush();
                        if (firstRowOnly) {
                            // closing the socket is all the backend (or the proxy) is told
                            System.out.printf(Locale.ROOT, "RESULT %s ok rows=1 first_row_ms=%.1f (closed after the first row)%n",
                                    label, firstRowNanos / 1e6);
                            return;
                        }
                    }
                    if (rows == firstRows && stallMillis > 0) {
                        stallBegin = System.nanoTime();
                        System.out.printf(Locale.ROOT, "STALL_BEGIN %s rows=%d%n", label, rows);
                        System.out.flush();
                        Thread.sleep(stallMillis);
                        stallEnd = System.nanoTime();
                        System.out.printf(Locale.ROOT, "STALL_END %s%n", label);
                        System.out.flush();
                    }
                } else if (type == 'E') {
                    error = PgLogin.errorText(body, 0, length);
                } else if (type == 'Z') {
                    break;
                }
            }
            long done = System.nanoTime();
            double afterStall = stallEnd > 0 ? (done - stallEnd) / 1e9 : 0;
            double readSeconds = (done - sent) / 1e9 - (stallEnd - stallBegin) / 1e9;
            boolean ok = error.isEmpty() && (expectRows < 0 || rows == expectRows);
            System.out.printf(Locale.ROOT, "RESULT %s %s rows=%d first_row_ms=%.1f total_s=%.1f reading_s=%.1f after_stall_s=%.1f error=%s%n",
                    label, ok ? "ok" : "FAIL", rows, firstRowNanos / 1e6, (done - sent) / 1e9, readSeconds, afterStall,
                    error.isEmpty() ? "none" : "'" + error + "'");
            out.write(PgLogin.terminate());
            out.flush();
            System.exit(ok ? 0 : 1);
        } catch (EOFException e) {
            System.out.println("RESULT " + label + " FAIL the server closed the connection");
            System.exit(1);
        }
    }

    private static void login(DataInputStream in, OutputStream out, String user, String password, String database) throws IOException {
        write(out, PgLogin.startup(user, database, "stalled-reader"));
        while (true) {
            byte type = in.readByte();
            int length = in.readInt() - 4;
            byte[] body = new byte[length];
            in.readFully(body);
            if (type == 'R') {
                int method = ByteBuffer.wrap(body).getInt();
                if (method != PgLogin.AUTH_OK) {
                    byte[] salt = new byte[4];
                    if (method == PgLogin.AUTH_MD5) {
                        System.arraycopy(body, 4, salt, 0, 4);
                    }
                    write(out, PgLogin.password(method, salt, user, password));
                }
            } else if (type == 'E') {
                throw new IOException("login refused: " + PgLogin.errorText(body, 0, length));
            } else if (type == 'Z') {
                return;
            }
        }
    }

    private static void write(OutputStream out, ByteBuffer message) throws IOException {
        out.write(message.array(), message.arrayOffset() + message.position(), message.remaining());
        out.flush();
    }
}
