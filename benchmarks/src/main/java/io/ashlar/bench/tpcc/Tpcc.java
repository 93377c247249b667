package io.ashlar.bench.tpcc;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A TPC-C driver equivalent to BenchmarkSQL 5.0 on PostgreSQL: its {@code bmsql_*} schema, its
 * loader's INSERT batches and its five transactions with their exact SQL, prepared, autocommit off,
 * so that everything BenchmarkSQL sends can be sent to Ashlar and to PostgreSQL directly, and the
 * two compared. Written from the TPC-C specification (5.11); docs/tpcc.md says how to use it and
 * what its output means.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.ashlar.bench.tpcc.Tpcc all --url jdbc:postgresql://127.0.0.1:5433/tpcc \
 *     --warehouses 2 --terminals 4 --duration 60
 * </pre>
 *
 * Exit status: 0 on success; 1 when a step failed, a run had errors or a consistency check failed;
 * 2 for a bad command line.
 */
public final class Tpcc {

    private Tpcc() {
    }

    public static void main(String[] args) {
        TpccOptions options;
        try {
            options = TpccOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("tpcc: " + e.getMessage());
            System.err.print(TpccOptions.USAGE);
            System.exit(2);
            return;
        }
        int status;
        try {
            status = run(options, System.out) ? 0 : 1;
        } catch (Exception e) {
            System.err.println("tpcc: " + e.getMessage());
            if (!(e instanceof SQLException) && !(e instanceof IllegalArgumentException)) {
                e.printStackTrace();
            }
            status = 1;
        }
        System.exit(status);
    }

    /** Runs the command; false when a run had errors or a consistency check failed. */
    static boolean run(TpccOptions options, PrintStream out) throws Exception {
        TpccConnector connector = options.connector();
        TpccScale scale = TpccScale.of(options.warehouses(), options.scaleDown());
        boolean ok = true;
        switch (options.command()) {
            case "create" -> create(connector, options.drop(), options.indexes(), out);
            case "load" -> TpccLoader.load(connector, scale, options.loaders(), out);
            case "index" -> index(connector, out);
            case "run" -> ok = runAndPrint(connector, options, out);
            case "check" -> ok = check(connector, out);
            case "all" -> {
                create(connector, options.drop(), false, out);
                TpccLoader.load(connector, scale, options.loaders(), out);
                index(connector, out);
                ok = runAndPrint(connector, options, out);
                ok &= check(connector, out);
            }
            default -> throw new IllegalArgumentException("unknown command " + options.command());
        }
        return ok;
    }

    /**
     * Creates the tables, each statement on its own (autocommit), after dropping them if asked, and
     * their keys and indexes if asked.
     */
    static void create(TpccConnector connector, boolean drop, boolean indexes, PrintStream out) throws SQLException {
        long started = System.nanoTime();
        try (Connection connection = connector.open(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            if (drop) {
                TpccSchema.execute(statement, TpccSchema.dropTables());
            }
            TpccSchema.execute(statement, TpccSchema.CREATE_TABLES);
            if (indexes) {
                TpccSchema.createIndexes(connection);
            }
        }
        out.println("Created " + TpccSchema.TABLES.size() + " tables" + (indexes ? " and their keys and indexes" : "")
                + " in " + seconds((System.nanoTime() - started) / 1_000_000) + " s");
    }

    /** Creates the keys and indexes (after a load, as BenchmarkSQL's runDatabaseBuild.sh does). */
    static void index(TpccConnector connector, PrintStream out) throws SQLException {
        long started = System.nanoTime();
        try (Connection connection = connector.open()) {
            connection.setAutoCommit(true);
            TpccSchema.createIndexes(connection);
        }
        out.println("Created the keys and indexes in " + seconds((System.nanoTime() - started) / 1_000_000) + " s");
    }

    private static boolean runAndPrint(TpccConnector connector, TpccOptions options, PrintStream out) throws Exception {
        TpccRun.Result result = TpccRun.run(connector, options.runSettings(), out);
        TpccRun.print(result, out);
        return result.errorsAll() == 0;
    }

    private static boolean check(TpccConnector connector, PrintStream out) throws SQLException {
        try (Connection connection = connector.open()) {
            return TpccCheck.print(TpccCheck.check(connection), out);
        }
    }

    /** Milliseconds as seconds with one decimal, e.g. "12.3". */
    static String seconds(long millis) {
        return millis / 1000 + "." + millis % 1000 / 100;
    }
}
