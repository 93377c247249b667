package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A user-defined type has an OID of its own on every data source. Clients look types up by the OIDs the proxy
 * describes (tokio-postgres, sqlx, pgx, pgjdbc's type names), and type queries go to the default data source; so
 * results are described, and parameters declared, in the default data source's OIDs whatever shard answers. A shard
 * other than the default one described its own OID, which the client's look-up did not find (tokio-postgres could not
 * prepare, sqlx found no row), and got the client's OID in a Parse, where it named no type ({@code cache lookup failed
 * for type}) or another one.
 */
final class UserTypeOidsTest {

    private static ProxiedPostgres server;
    private static int defaultOid;
    private static int otherOid;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
            s.execute("ALTER TABLE t_og ADD COLUMN m mood");
            // id 0 lives in ds_0 (the default data source), id 1 in ds_1.
            s.execute("INSERT INTO t_og (id, name, m) VALUES (0, 'zero', 'ok'), (1, 'one', 'happy')");
        }
        defaultOid = moodOid("ds_0");
        otherOid = moodOid("ds_1");
    }

    private static int moodOid(String dataSource) throws SQLException {
        try (Connection c = server.backend(dataSource); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 'mood'::regtype::oid")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void resultsAndParametersUseTheDefaultDataSourcesOids() throws Exception {
        assertNotEquals(defaultOid, otherOid, "the data sources number the type apart");
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (String where : new String[] {"id = 1", "id = 0", "id IN (0, 1)"}) {
                c.send(RawConnection.concat(RawConnection.parse("", "SELECT m FROM t_og WHERE " + where + " ORDER BY id"),
                        RawConnection.describe('S', ""), RawConnection.sync()));
                List<RawConnection.Message> described = c.readUntilReady();
                assertEquals("1tTZ", RawConnection.types(described), where);
                assertEquals(defaultOid, columnType(described.get(2)), where + ": the column's type");
            }
            // A parameter declared with the client's OID, on the other shard.
            c.send(RawConnection.concat(RawConnection.parse("", "SELECT name FROM t_og WHERE id = 1 AND m = $1", defaultOid),
                    RawConnection.describe('S', ""), RawConnection.bind("", "", "happy"), RawConnection.execute("", 0),
                    RawConnection.sync()));
            List<RawConnection.Message> answer = c.readUntilReady();
            assertEquals("1tT2DCZ", RawConnection.types(answer), answer::toString);
            assertEquals(defaultOid, ByteBuffer.wrap(answer.get(1).body()).getInt(2), "the parameter's type, described");
            assertEquals("one", new String(answer.get(4).body(), 6, answer.get(4).body().length - 6, StandardCharsets.UTF_8));
        }
        // pgjdbc names the column's type by looking its OID up (in the default data source).
        try (Connection c = server.proxy(""); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT m FROM t_og WHERE id = 1")) {
            assertEquals("mood", rs.getMetaData().getColumnTypeName(1));
            rs.next();
            assertEquals("happy", rs.getString(1));
        }
    }

    /**
     * tokio-postgres and sqlx ask for every column in binary: an enum and an array of one, read over both shards (their
     * text merged, then written in binary by the proxy), come as PostgreSQL's own binary of them on the default data
     * source. They were refused with 0A000 (no binary encoder for the type's OID).
     */
    @Test
    void enumsMergedOverShardsComeInBinary() throws Exception {
        short[] binary = {1};
        String sql = "SELECT m, ARRAY[m, 'sad']::mood[] AS ms FROM %s WHERE id IN (0, 1) ORDER BY id";
        List<String> expected = new java.util.ArrayList<>();
        try (RawConnection direct = new RawConnection(server.backendPort())) {
            direct.logIn(ProxiedPostgres.BACKEND_USER, "ds_0", "");
            // Both rows' values, as ds_0 (the default data source, whose OIDs the proxy describes) writes them.
            direct.send(RawConnection.concat(RawConnection.parse("", "SELECT m, ARRAY[m, 'sad']::mood[] AS ms FROM"
                    + " (VALUES ('ok'::mood), ('happy')) v(m)"), RawConnection.bind("", "", new short[0], new byte[0][], binary),
                    RawConnection.execute("", 0), RawConnection.sync()));
            for (RawConnection.Message m : direct.readUntilReady()) {
                if (m.type() == 'D') {
                    expected.add(java.util.HexFormat.of().formatHex(m.body()));
                }
            }
        }
        assertEquals(2, expected.size());
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(RawConnection.concat(RawConnection.parse("", sql.formatted("t_og")),
                    RawConnection.bind("", "", new short[0], new byte[0][], binary), RawConnection.execute("", 0), RawConnection.sync()));
            List<String> actual = new java.util.ArrayList<>();
            List<RawConnection.Message> answer = c.readUntilReady();
            for (RawConnection.Message m : answer) {
                if (m.type() == 'D') {
                    actual.add(java.util.HexFormat.of().formatHex(m.body()));
                }
            }
            assertEquals(expected, actual, answer::toString);
        }
    }

    /** The type OID of a one-column RowDescription. */
    private static int columnType(RawConnection.Message rowDescription) {
        ByteBuffer body = ByteBuffer.wrap(rowDescription.body());
        body.getShort();
        while (body.get() != 0) {
            // the column's name
        }
        body.getInt(); // table OID
        body.getShort(); // column number
        return body.getInt();
    }
}
