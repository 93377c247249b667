package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * COPY FROM STDIN and TO STDOUT in the extended protocol on a sharded database, as tokio-postgres's copy_in and
 * copy_out send them (Parse, Bind, Execute, Sync; the data after the CopyInResponse, then CopyDone and another
 * Sync). The proxy ran such a COPY as a plain statement: COPY IN left the client waiting for ever and its backend
 * connection in COPY holding its locks, COPY OUT answered {@code COPY n} with no data. Each exchange here is
 * compared with PostgreSQL's own answer to it on one shard's table.
 */
final class ExtendedCopyTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void copyInAndOutRunInTheExtendedProtocol() throws Exception {
        String direct = exchanges(direct(), "t_og_0", 10);
        assertEquals(direct, exchanges(proxy(), "t_og", 20), "the proxy's answers are PostgreSQL's");
        // The rows went where their keys say: ds_${id % 2}.t_og_${id.intdiv(2) % 2}.
        try (Connection c = server.backend("ds_0"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT id, name FROM t_og_0 WHERE id >= 20 ORDER BY id")) {
            assertEquals(List.of("20 a", "24 e"), rows(rs));
        }
        try (Connection c = server.backend("ds_1"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT id, name FROM t_og_1 WHERE id >= 20 ORDER BY id")) {
            assertEquals(List.of("23 d"), rows(rs));
        }
        // Nothing is left in COPY on a backend.
        try (Connection c = server.backend("ds_0"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'copy%' AND state <> 'idle'")) {
            rs.next();
            assertEquals(0, rs.getInt(1));
        }
    }

    /**
     * A COPY IN, a COPY IN that the client fails, a COPY OUT and a statement after them, on one connection; the
     * answers' message types and the COPY's data, rendered one exchange a line.
     */
    private static String exchanges(RawConnection c, String table, int base) throws Exception {
        List<String> result = new ArrayList<>();
        try (c) {
            c.send(RawConnection.concat(RawConnection.parse("", "COPY " + table + " (id, name) FROM STDIN"),
                    RawConnection.describe('S', ""), RawConnection.sync()));
            result.add(RawConnection.types(c.readUntilReady()));
            c.send(RawConnection.concat(RawConnection.bind("", ""), RawConnection.describe('P', ""), RawConnection.execute("", 0),
                    RawConnection.sync()));
            result.add(RawConnection.types(c.readThrough('G')));
            c.send(RawConnection.concat(copyData(base + "\ta\n" + (base + 3) + "\td\n"), copyData((base + 4) + "\te\n"),
                    RawConnection.message('c', new byte[0]), RawConnection.sync()));
            result.add(render(c.readUntilReady()));
            // A COPY the client gives up: 57014, and the rows sent before it are not kept.
            c.send(RawConnection.concat(RawConnection.bind("", ""), RawConnection.execute("", 0), RawConnection.sync()));
            result.add(RawConnection.types(c.readThrough('G')));
            c.send(RawConnection.concat(copyData((base + 1) + "\tb\n"), RawConnection.message('f', RawConnection.cString("given up")),
                    RawConnection.sync()));
            result.add(render(c.readUntilReady()));
            c.send(RawConnection.concat(RawConnection.parse("", "COPY (SELECT id, name FROM " + table + " WHERE id >= " + base
                    + " ORDER BY id) TO STDOUT"), RawConnection.bind("", ""), RawConnection.execute("", 0), RawConnection.sync()));
            result.add(render(c.readUntilReady()).replace(Integer.toString(base), "B"));
            c.send(RawConnection.query("SELECT count(*) FROM " + table + " WHERE id >= " + base));
            result.add(render(c.readUntilReady()));
        }
        return String.join("\n", result).replaceAll("\\b" + (base + 3) + "\\b", "B+3").replaceAll("\\b" + (base + 4) + "\\b", "B+4");
    }

    private static RawConnection proxy() throws Exception {
        RawConnection c = new RawConnection(server.proxyPort());
        c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
        return c;
    }

    private static RawConnection direct() throws Exception {
        RawConnection c = new RawConnection(server.backendPort());
        c.logIn(ProxiedPostgres.BACKEND_USER, "ds_0", "");
        return c;
    }

    private static byte[] copyData(String text) {
        return RawConnection.message('d', text.getBytes(StandardCharsets.UTF_8));
    }

    /** Types, with each CopyData's text, each CommandComplete's tag and each error's SQLSTATE. */
    private static String render(List<RawConnection.Message> messages) {
        StringBuilder result = new StringBuilder();
        for (RawConnection.Message m : messages) {
            result.append(m.type());
            switch (m.type()) {
                case 'd' -> result.append('[').append(new String(m.body(), StandardCharsets.UTF_8).replace("\t", " ").trim()).append(']');
                case 'C' -> result.append('[').append(new String(m.body(), 0, m.body().length - 1, StandardCharsets.UTF_8)).append(']');
                case 'E' -> result.append('[').append(field(m.body(), 'C')).append(']');
                case 'D' -> result.append('[').append(new String(m.body(), 6, m.body().length - 6, StandardCharsets.UTF_8)).append(']');
                default -> { }
            }
            result.append(' ');
        }
        return result.toString().trim();
    }

    private static String field(byte[] body, char code) {
        int at = 0;
        while (at < body.length && body[at] != 0) {
            int end = at + 1;
            while (body[end] != 0) {
                end++;
            }
            if (body[at] == code) {
                return new String(body, at + 1, end - at - 1, StandardCharsets.UTF_8);
            }
            at = end + 1;
        }
        return "";
    }

    private static List<String> rows(ResultSet rs) throws SQLException {
        List<String> result = new ArrayList<>();
        while (rs.next()) {
            result.add(rs.getInt(1) + " " + rs.getString(2));
        }
        return result;
    }
}
