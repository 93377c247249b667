package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * psql and pgbench, the PostgreSQL distribution's own clients (libpq), through the proxy: a psql
 * script (multi-statement lines, {@code \copy}, COPY FROM STDIN with inline data, expected
 * errors, a transaction with a savepoint) prints exactly what it prints against the server
 * directly, and pgbench initialises its tables and runs its TPC-B-like load in each query mode
 * with no failed transaction. Skipped when the binaries are not installed.
 *
 * @see <a href="https://www.postgresql.org/docs/current/app-psql.html">psql</a>
 * @see <a href="https://www.postgresql.org/docs/current/pgbench.html">pgbench</a>
 */
final class PsqlAndPgbenchTest {

    private static final Path PSQL = Path.of("/usr/bin/psql");
    private static final Path PGBENCH = Path.of("/usr/bin/pgbench");
    /**
     * The clients this test runs are part of the build's needs (Debian's postgresql-client): a
     * machine without them fails the build with what to install, rather than skipping the test.
     */
    private static void installed(Path tool) {
        if (!Files.isExecutable(tool)) {
            throw new AssertionError(tool + " is not installed: these tests run PostgreSQL's own clients"
                    + " (apt-get install postgresql-client)");
        }
    }

    private static final String DIRECT_DATABASE = "psql_direct";
    private static final long PROCESS_TIMEOUT_SECONDS = 180;

    private static ProxiedPostgres server;
    private static Path output;

    @BeforeAll
    static void start() throws Exception {
        installed(PSQL);
        installed(PGBENCH);
        server = ProxiedPostgres.start();
        output = Files.createDirectories(Path.of("target", "it-clients"));
        try (Connection c = server.direct(""); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + DIRECT_DATABASE);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** What a finished client process left. */
    private record Run(int exitCode, String stdout, String stderr) {
    }

    /** Runs a libpq client with a clean libpq environment, its output captured in target/it-clients. */
    private static Run run(String name, String password, List<String> command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(key -> key.startsWith("PG"));
        environment.put("PGPASSWORD", password);
        environment.put("PGCONNECT_TIMEOUT", "10");
        environment.put("PGTZ", "UTC");
        environment.put("PGDATESTYLE", "ISO, MDY");
        environment.put("LC_ALL", "C.UTF-8");
        Path stdout = output.resolve(name + ".out");
        Path stderr = output.resolve(name + ".err");
        builder.redirectOutput(stdout.toFile());
        builder.redirectError(stderr.toFile());
        Process process = builder.start();
        if (!process.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
            throw new AssertionError(name + " did not finish in " + PROCESS_TIMEOUT_SECONDS + " s; stdout:\n"
                    + Files.readString(stdout) + "\nstderr:\n" + Files.readString(stderr));
        }
        return new Run(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                Files.readString(stderr, StandardCharsets.UTF_8));
    }

    private static List<String> connection(int port, String user, String database) {
        return List.of("-h", "127.0.0.1", "-p", String.valueOf(port), "-U", user, "-d", database);
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(PsqlAndPgbenchTest.class.getResource(name).toURI());
    }

    private static List<String> psql(List<String> connection, Path script) {
        List<String> result = new ArrayList<>(List.of(PSQL.toString(), "-X", "-A", "-v", "ON_ERROR_STOP=1"));
        result.addAll(connection);
        result.addAll(List.of("-f", script.toString()));
        return result;
    }

    @Test
    void psqlScriptPrintsWhatItPrintsAgainstTheServer() throws Exception {
        Path script = resource("/it/psql/script.sql");
        Run direct = run("psql-direct", "", psql(connection(server.backendPort(), ProxiedPostgres.BACKEND_USER, DIRECT_DATABASE), script));
        Run proxied = run("psql-proxy", ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER),
                psql(connection(server.proxyPort(), ProxiedPostgres.SCRAM_USER, ProxiedPostgres.DATABASE), script));

        String expectedStdout = Files.readString(resource("/it/psql/expected.out"), StandardCharsets.UTF_8);
        assertEquals(0, direct.exitCode(), () -> "psql directly failed:\n" + direct.stderr());
        assertEquals(expectedStdout, direct.stdout(), "psql directly: the expected output is out of date");
        assertEquals(0, proxied.exitCode(), () -> "psql through the proxy failed:\n" + proxied.stderr());
        assertEquals(expectedStdout, proxied.stdout(), "psql's stdout through the proxy");
        assertEquals(direct.stderr(), proxied.stderr(), "psql's stderr (the expected errors) through the proxy");
        assertTrue(proxied.stderr().contains("ERROR:  duplicate key value violates unique constraint \"psql_items_pkey\"\n"
                + "DETAIL:  Key (id)=(1) already exists."), proxied.stderr());
        assertTrue(proxied.stderr().contains("ERROR:  relation \"no_such_table\" does not exist"), proxied.stderr());
        assertTrue(proxied.stderr().contains("ERROR:  division by zero"), proxied.stderr());
    }

    @Test
    void psqlStopsAtTheFirstErrorWithOnErrorStop() throws Exception {
        Path script = Files.writeString(output.resolve("stop.sql"), "SELECT 'before' AS step;\nSELECT 1 / 0;\nSELECT 'after' AS step;\n");
        Run proxied = run("psql-stop", ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER),
                psql(connection(server.proxyPort(), ProxiedPostgres.SCRAM_USER, ProxiedPostgres.DATABASE), script));
        assertEquals(3, proxied.exitCode(), proxied::stderr);
        assertEquals("step\nbefore\n(1 row)\n", proxied.stdout());
        assertEquals("psql:" + script + ":2: ERROR:  division by zero\n", proxied.stderr());
    }

    @Test
    void psqlWithWrongPasswordExitsWithAuthenticationFailure() throws Exception {
        List<String> command = new ArrayList<>(List.of(PSQL.toString(), "-X", "-w"));
        command.addAll(connection(server.proxyPort(), ProxiedPostgres.SCRAM_USER, ProxiedPostgres.DATABASE));
        command.addAll(List.of("-c", "SELECT 1"));
        Run proxied = run("psql-wrong-password", "not-the-password", command);
        assertEquals(2, proxied.exitCode(), proxied::stderr);
        assertTrue(proxied.stderr().contains("FATAL:  password authentication failed for user \"root\""), proxied.stderr());
    }

    private static List<String> pgbench(String... arguments) {
        List<String> result = new ArrayList<>(List.of(PGBENCH.toString()));
        result.addAll(List.of(arguments));
        // pgbench's -d is --debug: the database name is the positional argument.
        result.addAll(List.of("-h", "127.0.0.1", "-p", String.valueOf(server.proxyPort()), "-U", ProxiedPostgres.SCRAM_USER,
                ProxiedPostgres.DATABASE));
        return result;
    }

    private static void initialisePgbench() throws Exception {
        Run init = run("pgbench-init", ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER), pgbench("-i", "-s", "1"));
        assertEquals(0, init.exitCode(), () -> "pgbench -i failed:\n" + init.stderr());
        assertTrue(init.stderr().contains("done in"), init.stderr());
        try (Connection c = server.direct(""); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT (SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_branches),"
                     + " (SELECT count(*) FROM pgbench_tellers)")) {
            assertTrue(rs.next());
            assertEquals(100_000, rs.getLong(1));
            assertEquals(1, rs.getLong(2));
            assertEquals(10, rs.getLong(3));
        }
    }

    private static boolean initialised;

    @ParameterizedTest(name = "-M {0}")
    @ValueSource(strings = {"prepared", "simple", "extended"})
    void pgbenchRunsWithoutFailedTransactions(String queryMode) throws Exception {
        if (!initialised) {
            initialisePgbench();
            initialised = true;
        }
        Run bench = run("pgbench-" + queryMode, ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER),
                pgbench("-M", queryMode, "-c", "4", "-j", "2", "-t", "200"));
        assertEquals(0, bench.exitCode(), () -> "pgbench -M " + queryMode + " failed:\n" + bench.stdout() + bench.stderr());
        assertTrue(bench.stdout().contains("query mode: " + queryMode + "\n"), bench.stdout());
        assertTrue(bench.stdout().contains("number of transactions actually processed: 800/800\n"), bench.stdout());
        assertTrue(bench.stdout().contains("number of failed transactions: 0 (0.000%)\n"), bench.stdout());
        // pgbench truncates pgbench_history before it starts: every row there is one of this run's transactions.
        assertEquals(800, historyRows());
    }

    private static long historyRows() throws SQLException {
        try (Connection c = server.direct(""); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT count(*) FROM pgbench_history")) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
