package io.ashlar.bootstrap.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * psql's meta-commands ({@code \dt}, {@code \d}, {@code \di}, ...), tab completion and information_schema through
 * the proxy print what they print against one PostgreSQL database holding the same schema as plain tables: each
 * logical table once under its logical name, with its columns, keys, indexes, sequences and comments; actual
 * tables hidden. The expected output is a golden file, checked against the reference database first so that it
 * cannot go stale ({@code -Dgolden.update=true} rewrites it from the reference).
 */
final class CatalogPsqlTest {

    private static final Path PSQL = Path.of("/usr/bin/psql");
    private static final Path GOLDEN = Path.of("src", "test", "resources", "catalog", "psql-meta.out");
    private static final long PROCESS_TIMEOUT_SECONDS = 120;

    private static CatalogDatabases databases;

    @BeforeAll
    static void start() throws Exception {
        assertTrue(Files.isExecutable(PSQL), PSQL + " is needed by this test: install the PostgreSQL client (apt-get install postgresql-client)");
        databases = CatalogDatabases.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (databases != null) {
            databases.close();
        }
    }

    @Test
    void metaCommandsSeeTheLogicalTablesAsOneDatabase() throws Exception {
        Path script = Path.of(CatalogPsqlTest.class.getResource("/catalog/psql-meta.sql").toURI());
        Run reference = psql("reference", databases.backendPort(), CatalogDatabases.BACKEND_USER, "", CatalogDatabases.REFERENCE, script);
        Run proxied = psql("proxy", databases.proxyPort(), CatalogDatabases.PROXY_USER, CatalogDatabases.PROXY_PASSWORD,
                CatalogDatabases.LOGICAL_DATABASE, script);
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(GOLDEN, reference.stdout(), StandardCharsets.UTF_8);
        }
        String golden = Files.readString(GOLDEN, StandardCharsets.UTF_8);
        assertEquals(golden, reference.stdout(), "psql on the reference database: the golden file " + GOLDEN
                + " is out of date (-Dgolden.update=true rewrites it)");
        assertEquals(golden, proxied.stdout(), "psql through the proxy (actual) and the golden file (expected)");
        assertEquals(reference.stderr(), proxied.stderr(), "psql's errors through the proxy and on the reference database");
    }

    /** What a finished psql left. */
    private record Run(String stdout, String stderr) {
    }

    private static Run psql(String name, int port, String user, String password, String database, Path script)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(PSQL.toString(), "-X", "-h", "127.0.0.1", "-p", String.valueOf(port),
                "-U", user, "-d", database, "-f", script.toString()));
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(key -> key.startsWith("PG"));
        environment.put("PGPASSWORD", password);
        environment.put("PGCONNECT_TIMEOUT", "10");
        environment.put("PGTZ", "UTC");
        environment.put("LC_ALL", "C.UTF-8");
        Path output = Files.createDirectories(Path.of("target", "it-clients"));
        Path stdout = output.resolve("catalog-psql-" + name + ".out");
        Path stderr = output.resolve("catalog-psql-" + name + ".err");
        builder.redirectOutput(stdout.toFile());
        builder.redirectError(stderr.toFile());
        Process process = builder.start();
        if (!process.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
            throw new AssertionError("psql (" + name + ") did not finish in " + PROCESS_TIMEOUT_SECONDS + " s");
        }
        String err = Files.readString(stderr, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), () -> "psql (" + name + ") failed:\n" + err);
        // psql names the script and line of each error: the same script, so the same text.
        return new Run(Files.readString(stdout, StandardCharsets.UTF_8), err);
    }
}
