package io.ashlar.backend.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The backend session against a real PostgreSQL: results, tags, pinning and settings replay. */
class PassthroughSessionTest {

    private static EmbeddedPostgres postgres;
    private static LogicalDatabase database;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder().start();
        DataSourceConfig config = new DataSourceConfig("ds_0", "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres",
                "postgres", "", 5_000, 60_000, 1_800_000, 2, 0, Map.of());
        database = new LogicalDatabase("db", List.of(BackendDataSource.open(config)));
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
        postgres.close();
    }

    /** Records what a statement sent, as text lines. */
    static final class Recorder implements ResultSink {
        final List<String> events = new ArrayList<>();

        @Override
        public void columns(ColumnDescription[] columns) {
            StringBuilder b = new StringBuilder("columns");
            for (ColumnDescription c : columns) {
                b.append(' ').append(c.name()).append(':').append(c.typeOid());
            }
            events.add(b.toString());
        }

        @Override
        public void row(RowValues row) {
            StringBuilder b = new StringBuilder("row");
            for (int i = 0; i < row.columnCount(); i++) {
                byte[] v = row.value(i);
                b.append(' ').append(v == null ? "NULL" : new String(v, StandardCharsets.UTF_8));
            }
            events.add(b.toString());
        }

        @Override
        public void complete(String commandTag) {
            events.add("complete " + commandTag);
        }

        @Override
        public void empty() {
            events.add("empty");
        }

        @Override
        public void notice(ErrorFields notice) {
            events.add("notice " + notice.sqlState());
        }

        @Override
        public void parameterStatus(String name, String value) {
            events.add("status " + name + "=" + value);
        }
    }

    @Test
    void simpleQueryStreamsEveryResultInOrderWithTheBackendsTags() throws Exception {
        try (PassthroughSession session = new PassthroughSession(database, SessionSettings.EMPTY)) {
            Recorder r = new Recorder();
            session.executeSimple("select 1 as a, null::text as b; create temp table x(i int); insert into x values (1),(2)", r);
            assertEquals(List.of("columns a:23 b:25", "row 1 NULL", "complete SELECT 1", "complete CREATE TABLE",
                    "complete INSERT 0 2"), r.events);
        }
    }

    @Test
    void anErrorStopsTheRestOfASimpleQueryAndCarriesTheBackendsSqlState() {
        try (PassthroughSession session = new PassthroughSession(database, SessionSettings.EMPTY)) {
            Recorder r = new Recorder();
            StatementFailure failure = assertThrows(StatementFailure.class,
                    () -> session.executeSimple("select 1; select 1/0; select 2", r));
            assertEquals("22012", failure.fields().sqlState());
            assertEquals(List.of("columns ?column?:23", "row 1", "complete SELECT 1"), r.events);
            assertEquals('I', session.transactionStatus());
        }
    }

    @Test
    void aTransactionPinsOneConnectionUntilItEnds() throws Exception {
        try (PassthroughSession session = new PassthroughSession(database, SessionSettings.EMPTY)) {
            Recorder r = new Recorder();
            session.executeSimple("begin", r);
            assertEquals('T', session.transactionStatus());
            session.executeSimple("select pg_backend_pid()", r);
            String pid = r.events.get(r.events.size() - 2);
            assertThrows(StatementFailure.class, () -> session.executeSimple("select 1/0", new Recorder()));
            assertEquals('E', session.transactionStatus());
            session.executeSimple("rollback", r);
            assertEquals('I', session.transactionStatus());
            assertTrue(pid.startsWith("row "));
        }
    }

    @Test
    void settingsFollowTheSessionToOtherConnections() throws Exception {
        try (PassthroughSession a = new PassthroughSession(database, SessionSettings.EMPTY);
             PassthroughSession b = new PassthroughSession(database, SessionSettings.EMPTY)) {
            a.executeSimple("set application_name = 'from_a'", new Recorder());
            // b pins one connection in a transaction, so a has to use the other one.
            b.executeSimple("begin", new Recorder());
            Recorder r = new Recorder();
            a.executeSimple("show application_name", r);
            assertEquals("row from_a", r.events.get(1));
            Recorder rb = new Recorder();
            b.executeSimple("show application_name", rb);
            assertEquals("row ", rb.events.get(1));
            b.executeSimple("rollback", new Recorder());
            Recorder again = new Recorder();
            b.executeSimple("show application_name", again);
            assertEquals("row ", again.events.get(1));
        }
    }

    @Test
    void aRolledBackSetIsForgotten() throws Exception {
        try (PassthroughSession session = new PassthroughSession(database, SessionSettings.EMPTY)) {
            session.executeSimple("begin; set search_path = nowhere; rollback", new Recorder());
            Recorder r = new Recorder();
            session.executeSimple("show search_path", r);
            assertEquals("row \"$user\", public", r.events.get(1));
        }
    }

    @Test
    void extendedExecutionKeepsTheWholeResult() throws Exception {
        try (PassthroughSession session = new PassthroughSession(database, SessionSettings.EMPTY)) {
            BackendSession.Prepared prepared = session.prepare("select g, g * $1::int from generate_series(1, 3) g",
                    new int[] {23});
            BufferedResult result = (BufferedResult) session.execute(prepared,
                    ParameterValues.of(new int[] {23}, new short[0], new byte[][] {"10".getBytes(StandardCharsets.UTF_8)}),
                    new Recorder(), false);
            assertEquals(3, result.rowCount());
            assertEquals("SELECT 3", result.tag());
            assertEquals("30", new String(result.row(2).value(1), StandardCharsets.UTF_8));
            BackendSession.Description d = session.describe(session.prepare("select $1::int8 + 1 as n", new int[0]));
            assertEquals(20, d.parameterTypes()[0]);
            assertEquals("n", d.columns().orElseThrow()[0].name());
        }
    }
}
