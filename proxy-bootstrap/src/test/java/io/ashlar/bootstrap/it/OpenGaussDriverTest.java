package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The openGauss JDBC driver ({@code org.opengauss:opengauss-jdbc}, {@code jdbc:opengauss://})
 * through Ashlar to a PostgreSQL backend (no openGauss server can run here): it logs in with
 * openGauss's SHA256 exchange over protocol 3.51 (and 3.50, by hand: the driver refuses to ask
 * for it) and with MD5, its connect-time
 * questions about openGauss-only catalogs are answered by the proxy, prepared statements run, and
 * {@code executeBatch} works in every {@code batchMode}, as one batch bind ({@code U}) message for
 * {@code on} and {@code auto}.
 *
 * @see <a href="https://gitee.com/opengauss/openGauss-connector-jdbc">openGauss JDBC driver</a>
 */
final class OpenGaussDriverTest {

    private static final int BATCH_ROWS = 1_000;

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        Class.forName("org.opengauss.Driver");
        server = ProxiedPostgres.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static Connection connect(String parameters, String user, String password) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", "10");
        return DriverManager.getConnection(server.openGaussUrl(parameters), properties);
    }

    private static Connection connect(String parameters) throws SQLException {
        return connect(parameters, ProxiedPostgres.SCRAM_USER, ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER));
    }

    private static int selectSum(Connection c, int a, int b) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT ?::int + ?::int")) {
            ps.setInt(1, a);
            ps.setInt(2, b);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getInt(1);
            }
        }
    }

    @Test
    void sha256LoginOverProtocol351() throws SQLException {
        try (Connection c = connect("")) {
            assertEquals(42, selectSum(c, 40, 2));
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_user")) {
                assertTrue(rs.next());
                assertEquals(ProxiedPostgres.BACKEND_USER, rs.getString(1));
            }
        }
    }

    /**
     * Driver 6.0.2-og refuses {@code protocolVersion=350} itself (its PGProperty allows only "3"),
     * so protocol 3.50 is spoken by hand here, with the driver's own SHA256 digest code.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ProxiedPostgres.SCRAM_USER, ProxiedPostgres.DEFAULT_METHOD_USER})
    void sha256LoginOverProtocol350(String user) throws Exception {
        String password = ProxiedPostgres.password(user);
        try (RawConnection raw = new RawConnection(server.proxyPort())) {
            List<RawConnection.Message> messages = logIn350(raw, user, password);
            assertEquals('Z', messages.getLast().type(), messages::toString);
            for (RawConnection.Message m : messages) {
                assertTrue(m.type() != 'E' && m.type() != 'v', () -> "unexpected " + m);
                if (m.type() == 'S') {
                    assertFalse(new String(m.body(), StandardCharsets.UTF_8).startsWith("enable_record_nettime"));
                }
            }
            raw.send(RawConnection.query("SELECT 6 * 7"));
            List<RawConnection.Message> answer = raw.readUntilReady();
            assertTrue(answer.stream().anyMatch(m -> m.type() == 'D'
                    && new String(m.body(), StandardCharsets.UTF_8).endsWith("42")), answer::toString);
        }
        try (RawConnection raw = new RawConnection(server.proxyPort())) {
            List<RawConnection.Message> messages = logIn350(raw, user, password + "x");
            assertEquals('E', messages.getLast().type(), messages::toString);
            assertTrue(new String(messages.getLast().body(), StandardCharsets.UTF_8).contains("C28P01"), messages::toString);
        }
    }

    /** Startup for protocol 3.50, the SHA256 request (no iteration count: 2048), the driver's answer to it. */
    private static List<RawConnection.Message> logIn350(RawConnection raw, String user, String password) throws Exception {
        byte[] startup = RawConnection.startupPacket(user, ProxiedPostgres.DATABASE);
        startup[7] = 50; // Int32 length, then Int16 major 3, Int16 minor 50
        raw.send(startup);
        RawConnection.Message request = raw.read();
        assertEquals('R', request.type(), request::toString);
        ByteBuffer body = ByteBuffer.wrap(request.body());
        assertEquals(10, body.getInt(), "AuthenticationSHA256Password");
        assertEquals(2, body.getInt(), "stored method SHA256");
        assertEquals(64 + 8 + 8, request.body().length, "no iteration count in 3.50");
        String salt = new String(request.body(), 8, 64, StandardCharsets.US_ASCII);
        String token = new String(request.body(), 72, 8, StandardCharsets.US_ASCII);
        byte[] digest = org.opengauss.util.MD5Digest.RFC5802Algorithm(password, salt, token);
        raw.send(RawConnection.message('p', RawConnection.cString(new String(digest, StandardCharsets.US_ASCII))));
        List<RawConnection.Message> result = new ArrayList<>();
        RawConnection.Message m;
        while ((m = raw.read()) != null) {
            result.add(m);
            if (m.type() == 'Z' || m.type() == 'E') {
                break;
            }
        }
        return result;
    }

    @Test
    void md5LoginWorks() throws SQLException {
        try (Connection c = connect("", ProxiedPostgres.MD5_USER, ProxiedPostgres.password(ProxiedPostgres.MD5_USER))) {
            assertEquals(7, selectSum(c, 3, 4));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ProxiedPostgres.SCRAM_USER, ProxiedPostgres.MD5_USER, ProxiedPostgres.DEFAULT_METHOD_USER})
    void wrongPasswordIsRefusedWith28P01(String user) {
        SQLException e = assertThrows(SQLException.class,
                () -> connect("", user, ProxiedPostgres.password(user) + "x").close());
        assertEquals("28P01", e.getSQLState(), () -> ResultDump.error(e));
    }

    @Test
    void connectTimeQuestionsGetOpenGaussAnswers() throws SQLException {
        try (Connection c = connect(""); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select datcompatibility from pg_database where datname='it_db'")) {
                assertTrue(rs.next());
                assertEquals("A", rs.getString(1));
            }
            try (ResultSet rs = s.executeQuery("select count(*) from pg_settings where name = 'support_batch_bind' and setting = 'on';")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
            try (ResultSet rs = s.executeQuery("show dolphin.b_compatibility_mode")) {
                assertTrue(rs.next());
                assertEquals("off", rs.getString(1));
            }
            try (ResultSet rs = s.executeQuery("select name, setting from pg_settings where name in ('connection_info')")) {
                assertFalse(rs.next());
            }
            s.execute("set dolphin.b_compatibility_mode to on");
            // What is not one of the driver's questions still goes to the backend.
            try (ResultSet rs = s.executeQuery("select count(*) from pg_settings where name = 'work_mem'")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
        }
    }

    @Test
    void preparedStatementsRunRepeatedly() throws SQLException {
        try (Connection c = connect("prepareThreshold=1")) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS og_prepared");
                s.execute("CREATE TABLE og_prepared (id int PRIMARY KEY, name text)");
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO og_prepared VALUES (?, ?)")) {
                for (int i = 0; i < 10; i++) {
                    insert.setInt(1, i);
                    insert.setString(2, "n" + i);
                    assertEquals(1, insert.executeUpdate());
                }
            }
            try (PreparedStatement select = c.prepareStatement("SELECT name FROM og_prepared WHERE id = ?")) {
                for (int i = 0; i < 10; i++) {
                    select.setInt(1, i);
                    try (ResultSet rs = select.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals("n" + i, rs.getString(1));
                        assertFalse(rs.next());
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "batchMode={0}")
    @ValueSource(strings = {"on", "off", "auto"})
    void executeBatchInsertsEveryRow(String batchMode) throws SQLException {
        String table = "og_batch_" + batchMode;
        try (Connection c = connect("batchMode=" + batchMode)) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
                s.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, name text, amount numeric)");
            }
            int[] counts;
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?)")) {
                for (int i = 0; i < BATCH_ROWS; i++) {
                    insert.setInt(1, i);
                    insert.setString(2, i % 7 == 0 ? null : "row " + i);
                    insert.setBigDecimal(3, new BigDecimal(i + ".25"));
                    insert.addBatch();
                }
                counts = insert.executeBatch();
            }
            assertEquals(BATCH_ROWS, counts.length);
            if (batchMode.equals("off")) {
                for (int count : counts) {
                    assertEquals(1, count);
                }
            } else {
                // One batch bind answers with one CommandComplete carrying the total.
                int[] expected = new int[BATCH_ROWS];
                expected[0] = BATCH_ROWS;
                assertArrayEquals(expected, counts);
            }
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*), sum(id), count(name), sum(amount) FROM " + table)) {
                assertTrue(rs.next());
                assertEquals(BATCH_ROWS, rs.getInt(1));
                assertEquals((long) BATCH_ROWS * (BATCH_ROWS - 1) / 2, rs.getLong(2));
                assertEquals(BATCH_ROWS - (BATCH_ROWS + 6) / 7, rs.getInt(3));
                // sum of i + 0.25 for i in 0..999
                assertEquals(0, new BigDecimal("499750.00").compareTo(rs.getBigDecimal(4)), rs.getString(4));
            }
        }
    }

    @Test
    void batchUpdateCountsTheTotal() throws SQLException {
        try (Connection c = connect("batchMode=on")) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS og_batch_update");
                s.execute("CREATE TABLE og_batch_update (id int PRIMARY KEY, grp int, hits int)");
                s.execute("INSERT INTO og_batch_update SELECT g, g % 10, 0 FROM generate_series(1, 100) g");
            }
            int[] counts;
            try (PreparedStatement update = c.prepareStatement("UPDATE og_batch_update SET hits = hits + 1 WHERE grp = ?")) {
                for (int group = 0; group < 3; group++) {
                    update.setInt(1, group);
                    update.addBatch();
                }
                counts = update.executeBatch();
            }
            assertArrayEquals(new int[] {30, 0, 0}, counts);
        }
    }

    @Test
    void batchesInsideTheClientsTransactionCommitAndRollBackWithIt() throws SQLException {
        try (Connection c = connect("batchMode=on")) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS og_batch_tx");
                s.execute("CREATE TABLE og_batch_tx (id int PRIMARY KEY)");
            }
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO og_batch_tx VALUES (?)")) {
                for (int round = 0; round < 2; round++) {
                    for (int i = 0; i < 10; i++) {
                        insert.setInt(1, round * 100 + i);
                        insert.addBatch();
                    }
                    assertEquals(10, insert.executeBatch()[0]);
                    if (round == 0) {
                        c.rollback();
                    } else {
                        c.commit();
                    }
                }
            }
            c.setAutoCommit(true);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT min(id), count(*) FROM og_batch_tx")) {
                assertTrue(rs.next());
                assertEquals(100, rs.getInt(1), "the rolled back batch left nothing");
                assertEquals(10, rs.getInt(2));
            }
        }
    }

    @Test
    void aFailingRowFailsTheWholeBatch() throws SQLException {
        try (Connection c = connect("batchMode=on")) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS og_batch_fail");
                s.execute("CREATE TABLE og_batch_fail (id int PRIMARY KEY)");
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO og_batch_fail VALUES (?)")) {
                for (int i : new int[] {1, 2, 3, 2, 5}) {
                    insert.setInt(1, i);
                    insert.addBatch();
                }
                BatchUpdateException e = assertThrows(BatchUpdateException.class, insert::executeBatch);
                assertEquals("23505", e.getSQLState(), () -> ResultDump.error(e));
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM og_batch_fail")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "nothing of a failed batch stays");
            }
        }
    }

    /** The same driver against a logical database sharded over two data sources and four tables. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    final class Sharded {

        private ProxiedPostgres sharded;

        @BeforeAll
        void start() throws Exception {
            sharded = ProxiedPostgres.startSharded();
        }

        @AfterAll
        void stop() throws Exception {
            if (sharded != null) {
                sharded.close();
            }
        }

        private Connection connect(String parameters) throws SQLException {
            return DriverManager.getConnection(sharded.openGaussUrl(parameters), ProxiedPostgres.SCRAM_USER,
                    ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER));
        }

        @ParameterizedTest(name = "batchMode={0}")
        @ValueSource(strings = {"on", "off", "auto"})
        void executeBatchPutsEveryRowWhereTheRuleSays(String batchMode) throws SQLException {
            int[] counts;
            try (Connection c = connect("batchMode=" + batchMode)) {
                try (Statement s = c.createStatement()) {
                    s.execute("DELETE FROM t_og");
                }
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO t_og (id, name) VALUES (?, ?)")) {
                    for (int i = 0; i < BATCH_ROWS; i++) {
                        insert.setInt(1, i);
                        insert.setString(2, "row " + i);
                        insert.addBatch();
                    }
                    counts = insert.executeBatch();
                }
                try (PreparedStatement select = c.prepareStatement("SELECT name FROM t_og WHERE id = ?")) {
                    for (int id : new int[] {0, 1, 2, 3, 998, 999}) {
                        select.setInt(1, id);
                        try (ResultSet rs = select.executeQuery()) {
                            assertTrue(rs.next());
                            assertEquals("row " + id, rs.getString(1));
                            assertFalse(rs.next());
                        }
                    }
                }
            }
            int[] expected = new int[BATCH_ROWS];
            if (batchMode.equals("off")) {
                java.util.Arrays.fill(expected, 1);
            } else {
                expected[0] = BATCH_ROWS;
            }
            assertArrayEquals(expected, counts);
            int total = 0;
            for (int database = 0; database < 2; database++) {
                try (Connection shard = sharded.backend("ds_" + database); Statement s = shard.createStatement()) {
                    for (int table = 0; table < 2; table++) {
                        try (ResultSet rs = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE id % 2 <> " + database
                                + " OR (id / 2) % 2 <> " + table + ") FROM t_og_" + table)) {
                            assertTrue(rs.next());
                            assertEquals(BATCH_ROWS / 4, rs.getInt(1), "rows in ds_" + database + ".t_og_" + table);
                            assertEquals(0, rs.getInt(2), "misplaced rows in ds_" + database + ".t_og_" + table);
                            total += rs.getInt(1);
                        }
                    }
                }
            }
            assertEquals(BATCH_ROWS, total);
        }
    }
}
