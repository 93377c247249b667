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
 * A user-defined type has an OID of its own on every data source and in the catalog database. Clients look types up by
 * the OIDs the proxy describes (tokio-postgres, sqlx, pgx, pgjdbc's type names, asyncpg's introspection), and their
 * type and relation queries go to the catalog database; so results are described, and parameters declared, in the
 * catalog database's OIDs whatever shard answers. A shard other than the default one described its own OID, which the
 * client's look-up did not find (tokio-postgres could not prepare, sqlx found no row), and got the client's OID in a
 * Parse, where it named no type ({@code cache lookup failed for type}) or another one; the default data source's OIDs
 * were not those of the catalog database's relations (pgjdbc's {@code getColumns} named the type null, asyncpg's
 * introspection failed, a composite had no fields for pgx and tokio-postgres).
 */
final class UserTypeOidsTest {

    private static ProxiedPostgres server;
    private static int defaultOid;
    private static int otherOid;
    private static int catalogOid;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
            s.execute("ALTER TABLE t_og ADD COLUMN m mood");
            // id 0 lives in ds_0 (the default data source), id 1 in ds_1.
            s.execute("INSERT INTO t_og (id, name, m) VALUES (0, 'zero', 'ok'), (1, 'one', 'happy')");
        }
        defaultOid = typeOid("ds_0", "mood");
        otherOid = typeOid("ds_1", "mood");
        catalogOid = typeOid(ProxiedPostgres.DATABASE, "mood");
    }

    private static int typeOid(String database, String type) throws SQLException {
        try (Connection c = server.backend(database); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT '" + type + "'::regtype::oid")) {
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
    void resultsAndParametersUseTheCatalogDatabasesOids() throws Exception {
        assertNotEquals(defaultOid, otherOid, "the data sources number the type apart");
        assertNotEquals(defaultOid, catalogOid, "the catalog database numbers its copy apart");
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (String where : new String[] {"id = 1", "id = 0", "id IN (0, 1)"}) {
                c.send(RawConnection.concat(RawConnection.parse("", "SELECT m FROM t_og WHERE " + where + " ORDER BY id"),
                        RawConnection.describe('S', ""), RawConnection.sync()));
                List<RawConnection.Message> described = c.readUntilReady();
                assertEquals("1tTZ", RawConnection.types(described), where);
                assertEquals(catalogOid, columnType(described.get(2)), where + ": the column's type");
            }
            // A parameter declared with the client's OID, on the other shard.
            c.send(RawConnection.concat(RawConnection.parse("", "SELECT name FROM t_og WHERE id = 1 AND m = $1", catalogOid),
                    RawConnection.describe('S', ""), RawConnection.bind("", "", "happy"), RawConnection.execute("", 0),
                    RawConnection.sync()));
            List<RawConnection.Message> answer = c.readUntilReady();
            assertEquals("1tT2DCZ", RawConnection.types(answer), answer::toString);
            assertEquals(catalogOid, ByteBuffer.wrap(answer.get(1).body()).getInt(2), "the parameter's type, described");
            assertEquals("one", new String(answer.get(4).body(), 6, answer.get(4).body().length - 6, StandardCharsets.UTF_8));
        }
        // pgjdbc names the column's type by looking its OID up; getColumns reads pg_attribute, then looks the OID up.
        try (Connection c = server.proxy(""); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT m FROM t_og WHERE id = 1")) {
            assertEquals("mood", rs.getMetaData().getColumnTypeName(1));
            rs.next();
            assertEquals("happy", rs.getString(1));
            try (ResultSet columns = c.getMetaData().getColumns(null, "public", "t_og", "m")) {
                assertEquals(true, columns.next());
                assertEquals("mood", columns.getString("TYPE_NAME"));
            }
        }
    }

    /**
     * What drivers ask of a type they meet: asyncpg's introspection joins pg_type to pg_class and pg_attribute (the
     * relation catalogs), tokio-postgres and pgx read a composite's fields from pg_attribute by the typrelid pg_type
     * gave; sqlx and tokio-postgres read an enum's labels from pg_enum. A type made, or changed, through the proxy and
     * used by no table is looked up as well, and so is an extension's (the catalog database gets the extension).
     */
    @Test
    void typeLookUpsFindWhatResultsDescribe() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TYPE pair AS (a int, b mood)");
            s.execute("CREATE TYPE feeling AS ENUM ('calm')");
            s.execute("ALTER TYPE feeling ADD VALUE 'eager' BEFORE 'calm'");
            s.execute("ALTER TYPE feeling ADD VALUE 'tired'");
            s.execute("ALTER TYPE mood ADD VALUE 'glad' AFTER 'ok'");
            s.execute("CREATE EXTENSION citext");
            s.execute("CREATE TYPE floatrange AS RANGE (SUBTYPE = float8, SUBTYPE_DIFF = float8mi)");
            s.execute("ALTER TABLE t_og ADD COLUMN email citext");
            for (String sql : new String[] {"SELECT ROW(1, 'ok')::pair AS v FROM t_og WHERE id = 1",
                    "SELECT email AS v FROM t_og WHERE id = 1", "SELECT floatrange(1, 2) AS v FROM t_og WHERE id = 1",
                    "SELECT 'tired'::feeling AS v FROM t_og WHERE id = 1", "SELECT m AS v FROM t_og WHERE id IN (0, 1)"}) {
                int oid = describedType(sql);
                // asyncpg's shape: the type, its relation's attributes' types
                try (java.sql.PreparedStatement p = c.prepareStatement("SELECT t.typname, t.typtype, (SELECT array_agg(ia.atttypid"
                        + " ORDER BY ia.attnum) FROM pg_catalog.pg_attribute ia INNER JOIN pg_catalog.pg_class cl ON ia.attrelid"
                        + " = cl.oid WHERE ia.attnum > 0 AND NOT ia.attisdropped AND cl.reltype = t.oid)::text AS attrs"
                        + " FROM pg_catalog.pg_type t WHERE t.oid = ANY(?::oid[])")) {
                    p.setArray(1, c.createArrayOf("oid", new Object[] {oid}));
                    try (ResultSet rs = p.executeQuery()) {
                        assertEquals(true, rs.next(), sql + ": asyncpg's introspection finds the type");
                        if (rs.getString(2).equals("c")) {
                            assertEquals("{23," + catalogOid + "}", rs.getString(3), "the composite's fields' types");
                        }
                    }
                }
            }
            try (ResultSet rs = c.getMetaData().getColumns(null, "public", "t_og", "email")) {
                assertEquals(true, rs.next(), "the shell has the column of the extension's type");
                assertEquals("citext", rs.getString("TYPE_NAME"));
            }
            int pair = typeOid(ProxiedPostgres.DATABASE, "pair");
            // tokio-postgres's shape: pg_type for typrelid, then pg_attribute by it
            try (ResultSet rs = s.executeQuery("SELECT a.attname, a.atttypid FROM pg_catalog.pg_attribute a WHERE a.attrelid ="
                    + " (SELECT typrelid FROM pg_catalog.pg_type WHERE oid = " + pair + ") AND a.attnum > 0 ORDER BY a.attnum")) {
                assertEquals(true, rs.next());
                assertEquals("a", rs.getString(1));
                assertEquals(true, rs.next());
                assertEquals(catalogOid, rs.getInt(2));
            }
            for (String[] each : new String[][] {{"feeling", "eager,calm,tired"}, {"mood", "sad,ok,glad,happy"}}) {
                try (ResultSet rs = s.executeQuery("SELECT string_agg(enumlabel, ',' ORDER BY enumsortorder) FROM pg_catalog.pg_enum"
                        + " WHERE enumtypid = " + typeOid(ProxiedPostgres.DATABASE, each[0]))) {
                    rs.next();
                    assertEquals(each[1], rs.getString(1), each[0] + "'s labels where clients read them");
                }
            }
        }
    }

    /**
     * One shard's answer in binary is relayed as it sent it, but for the type OIDs inside its values (a composite's
     * and an anonymous record's fields, an array's elements, nested), which name the types as the RowDescription does:
     * asyncpg refuses a composite whose fields name other types than those it looked up.
     */
    @Test
    void typeOidsInsideBinaryValuesAreTheCatalogDatabases() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TYPE duo AS (a int, b mood)");
        }
        String values = "ROW(1, 'ok')::duo AS d, ROW(2, 'sad'::mood) AS r, ARRAY[ROW(3, 'happy')::duo, NULL] AS ds,"
                + " ARRAY[ROW(4, ARRAY['ok'::mood])] AS rs, ARRAY['ok', NULL]::mood[] AS ms";
        short[] binary = {1};
        List<String> expected = binaryRows(server.backendPort(), ProxiedPostgres.BACKEND_USER, "", ProxiedPostgres.DATABASE,
                "SELECT " + values, binary);
        assertEquals(1, expected.size());
        for (int id = 0; id < 2; id++) {
            assertEquals(expected, binaryRows(server.proxyPort(), ProxiedPostgres.PASSWORD_USER,
                    ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER), ProxiedPostgres.DATABASE,
                    "SELECT " + values + " FROM t_og WHERE id = " + id, binary), "the row of ds_" + id);
        }
    }

    /**
     * Composite values merged over shards (read in text, written in binary by the proxy) come as PostgreSQL's own
     * binary of them in the catalog database: quoting and escapes in text fields, NULL and empty fields, an enum field,
     * a composite within a composite, an array of composites. They were refused with 0A000.
     */
    @Test
    void compositesMergedOverShardsComeInBinary() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TYPE trio AS (a int, b text, m mood)");
            s.execute("CREATE TYPE nest AS (t trio, n numeric, ts timestamptz[])");
        }
        String values = "ROW(id, 'x \"y\", (z) \\ w', 'ok')::trio AS t, ROW(id, '', NULL)::trio AS e,"
                + " ROW(ROW(id, 'a b', 'sad')::trio, 2.50, ARRAY['2024-01-02 03:04:05+00'::timestamptz])::nest AS n,"
                + " ARRAY[ROW(id, 'q', 'happy')::trio, NULL] AS ts";
        short[] binary = {1};
        List<String> expected = binaryRows(server.backendPort(), ProxiedPostgres.BACKEND_USER, "", ProxiedPostgres.DATABASE,
                "SELECT " + values + " FROM (VALUES (0), (1)) v(id) ORDER BY id", binary);
        assertEquals(2, expected.size());
        assertEquals(expected, binaryRows(server.proxyPort(), ProxiedPostgres.PASSWORD_USER,
                ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER), ProxiedPostgres.DATABASE,
                "SELECT " + values + " FROM t_og WHERE id IN (0, 1) ORDER BY id", binary));
    }

    /**
     * tokio-postgres and sqlx send every parameter in binary, pgx those of types it registered: an array or composite
     * of the user's types names the element and field types as the client was told them (the catalog database's),
     * which every shard numbers otherwise. PostgreSQL takes such OIDs as they come (array_recv and record_recv check
     * built-in types only), so they go as the client sent them; this pins that down. The parameters' types are those
     * the proxy described, as those drivers take them.
     */
    @Test
    void binaryParametersNameTheShardsTypes() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TYPE pairp AS (a int, b mood)");
        }
        int pairp = typeOid(ProxiedPostgres.DATABASE, "pairp");
        java.io.ByteArrayOutputStream array = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream a = new java.io.DataOutputStream(array);
        a.writeInt(1);
        a.writeInt(0);
        a.writeInt(catalogOid);
        a.writeInt(2);
        a.writeInt(1);
        a.writeInt(2);
        a.writeBytes("ok");
        a.writeInt(3);
        a.writeBytes("sad");
        java.io.ByteArrayOutputStream composite = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream r = new java.io.DataOutputStream(composite);
        r.writeInt(2);
        r.writeInt(23);
        r.writeInt(4);
        r.writeInt(5);
        r.writeInt(catalogOid);
        r.writeInt(2);
        r.writeBytes("ok");
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (int id = 0; id < 2; id++) {
                String sql = "SELECT ($1::mood[])::text AS ms, ($2::pairp)::text AS p FROM t_og WHERE id = " + id;
                c.send(RawConnection.concat(RawConnection.parse("s" + id, sql), RawConnection.describe('S', "s" + id),
                        RawConnection.sync()));
                List<RawConnection.Message> described = c.readUntilReady();
                assertEquals("1tTZ", RawConnection.types(described), described::toString);
                ByteBuffer types = ByteBuffer.wrap(described.get(1).body());
                assertEquals(2, types.getShort());
                assertEquals(typeOid(ProxiedPostgres.DATABASE, "mood[]"), types.getInt(), "the array parameter, described");
                assertEquals(pairp, types.getInt(), "the composite parameter, described");
                c.send(RawConnection.concat(RawConnection.bind("", "s" + id, new short[] {1},
                        new byte[][] {array.toByteArray(), composite.toByteArray()}, new short[0]),
                        RawConnection.execute("", 0), RawConnection.sync()));
                List<RawConnection.Message> answer = c.readUntilReady();
                assertEquals("2DCZ", RawConnection.types(answer), answer::toString);
                ByteBuffer row = ByteBuffer.wrap(answer.get(1).body());
                row.getShort();
                byte[] ms = new byte[row.getInt()];
                row.get(ms);
                byte[] p = new byte[row.getInt()];
                row.get(p);
                assertEquals("{ok,sad}", new String(ms, StandardCharsets.UTF_8), "ds_" + id);
                assertEquals("(5,ok)", new String(p, StandardCharsets.UTF_8), "ds_" + id);
            }
        }
    }

    /** The DataRows of {@code sql} run with the extended protocol, in hex. */
    private static List<String> binaryRows(int port, String user, String password, String database, String sql, short[] formats)
            throws Exception {
        try (RawConnection c = new RawConnection(port)) {
            c.logIn(user, database, password);
            c.send(RawConnection.concat(RawConnection.parse("", sql), RawConnection.bind("", "", new short[0], new byte[0][], formats),
                    RawConnection.execute("", 0), RawConnection.sync()));
            List<String> result = new java.util.ArrayList<>();
            List<RawConnection.Message> answer = c.readUntilReady();
            for (RawConnection.Message m : answer) {
                if (m.type() == 'D') {
                    result.add(java.util.HexFormat.of().formatHex(m.body()));
                }
                assertNotEquals('E', m.type(), answer::toString);
            }
            return result;
        }
    }

    /**
     * Type DDL through the proxy changes the catalog database's copies as it changes the data sources: renamed enum
     * labels and types, a type dropped and made again, an added attribute. The copies stayed as first made, so that
     * TypeORM (which renames an enum to _old, makes the new one and drops the old) never got in sync, and tools that
     * ask whether a dropped type exists were told it did.
     */
    @Test
    void typeDdlChangesTheCatalogsCopies() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TYPE tone AS ENUM ('a', 'b')");
            s.execute("ALTER TYPE tone RENAME VALUE 'a' TO 'z'");
            s.execute("CREATE TYPE hue AS ENUM ('x')");
            s.execute("ALTER TYPE hue RENAME TO shade");
            s.execute("CREATE TYPE level AS ENUM ('a')");
            s.execute("DROP TYPE level");
            s.execute("CREATE TYPE level AS ENUM ('b', 'c')");
            s.execute("CREATE TYPE point3 AS (x int)");
            s.execute("ALTER TYPE point3 ADD ATTRIBUTE y int");
            c.setAutoCommit(false);
            s.execute("ALTER TYPE tone RENAME TO tone_old");
            s.execute("CREATE TYPE tone AS ENUM ('low', 'high')");
            s.execute("DROP TYPE tone_old");
            c.commit();
            c.setAutoCommit(true);
            String labels = "SELECT t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_catalog.pg_type t"
                    + " JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid WHERE t.typname IN ('tone', 'tone_old', 'hue', 'shade', 'level')"
                    + " GROUP BY 1 ORDER BY 1";
            List<String> found = new java.util.ArrayList<>();
            try (ResultSet rs = s.executeQuery(labels)) {
                while (rs.next()) {
                    found.add(rs.getString(1) + "=" + rs.getString(2));
                }
            }
            assertEquals(List.of("level=b,c", "shade=x", "tone=low,high"), found, "the types clients look up");
            try (ResultSet rs = s.executeQuery("SELECT string_agg(a.attname, ',' ORDER BY a.attnum) FROM pg_catalog.pg_attribute a"
                    + " JOIN pg_catalog.pg_type t ON t.typrelid = a.attrelid WHERE t.typname = 'point3' AND a.attnum > 0")) {
                rs.next();
                assertEquals("x,y", rs.getString(1));
            }
        }
    }

    /** The type OID the proxy describes for the one column of {@code sql}. */
    private static int describedType(String sql) throws Exception {
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(RawConnection.concat(RawConnection.parse("", sql), RawConnection.describe('S', ""), RawConnection.sync()));
            List<RawConnection.Message> described = c.readUntilReady();
            assertEquals("1tTZ", RawConnection.types(described), sql);
            return columnType(described.get(2));
        }
    }

    /**
     * tokio-postgres and sqlx ask for every column in binary: an enum and an array of one, read over both shards (their
     * text merged, then written in binary by the proxy), come as PostgreSQL's own binary of them in the catalog
     * database. They were refused with 0A000 (no binary encoder for the type's OID).
     */
    @Test
    void enumsMergedOverShardsComeInBinary() throws Exception {
        short[] binary = {1};
        String sql = "SELECT m, ARRAY[m, 'sad']::mood[] AS ms FROM %s WHERE id IN (0, 1) ORDER BY id";
        List<String> expected = new java.util.ArrayList<>();
        try (RawConnection direct = new RawConnection(server.backendPort())) {
            direct.logIn(ProxiedPostgres.BACKEND_USER, ProxiedPostgres.DATABASE, "");
            // Both rows' values, as the catalog database (whose OIDs the proxy describes) writes them.
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
