package io.ashlar.bench.tpcc;

import java.util.List;

/**
 * The command line of {@link Tpcc}: a command and {@code --name value} options (booleans take no
 * value). Unknown options and bad values are errors naming the option.
 *
 * @param command          create, load, run, check or all
 * @param url              pgjdbc URL
 * @param user             user
 * @param password         password
 * @param warehouses       warehouses to load; for run and check the loaded count is read from bmsql_config
 * @param scaleDown        divisor of the item, customer and order counts (tests); runs read it from bmsql_config
 * @param loaders          parallel loader workers
 * @param terminals        terminals of a run
 * @param duration         measured seconds of a run
 * @param warmup           warm-up seconds of a run
 * @param fixedHome        home warehouse fixed per terminal (true) or drawn per transaction
 * @param drop             create: drop the tables first
 * @param indexes          create: create the keys and indexes too (false: run the index command after the load)
 * @param reportInterval   seconds between progress lines, 0 for none
 */
record TpccOptions(String command, String url, String user, String password, int warehouses, int scaleDown,
                   int loaders, int terminals, int duration, int warmup, boolean fixedHome, boolean drop,
                   boolean indexes, int reportInterval) {

    static final List<String> COMMANDS = List.of("create", "load", "index", "run", "check", "all");

    static final String USAGE = """
            usage: java -cp benchmarks.jar io.ashlar.bench.tpcc.Tpcc <command> [options]
              commands:
                create   create the bmsql_* tables and their keys and indexes (BenchmarkSQL 5.0's schema)
                load     load --warehouses W warehouses with --loaders N parallel workers
                index    create the keys and indexes (after "create --no-indexes" and "load")
                run      run the TPC-C mix and print tpmC, tpmTotal and latencies per transaction
                check    check TPC-C consistency conditions 1-4
                all      create --no-indexes, load, index, run, check (BenchmarkSQL's order)
              options:
                --url URL              jdbc:postgresql://host:port/database (default jdbc:postgresql://127.0.0.1:5433/tpcc)
                --user NAME            (default root)
                --password SECRET      (default root)
                --warehouses W         warehouses to load (default 1; run and check read it from bmsql_config)
                --loaders N            parallel loader workers (default 4)
                --terminals N          terminals, at most 10 per warehouse with --home fixed (default 4)
                --duration S           measured seconds (default 60)
                --warmup S             seconds run before measuring (default 10)
                --home fixed|random    home warehouse fixed per terminal, or drawn per transaction (default fixed)
                --drop                 create, all: drop the tables first
                --no-indexes           create: tables only; the index command makes the keys and indexes
                --report-interval S    seconds between progress lines of a run, 0 for none (default 10)
                --scale-down K         divide items, customers and orders by K, for quick tests (default 1)
            """;

    /** Parses {@code args}; throws IllegalArgumentException with a message for the user. */
    static TpccOptions parse(String[] args) {
        if (args.length == 0 || !COMMANDS.contains(args[0])) {
            throw new IllegalArgumentException(args.length == 0 ? "no command given"
                    : "unknown command '" + args[0] + "' (expected one of " + String.join(", ", COMMANDS) + ")");
        }
        String url = "jdbc:postgresql://127.0.0.1:5433/tpcc";
        String user = "root";
        String password = "root";
        int warehouses = 1;
        int scaleDown = 1;
        int loaders = 4;
        int terminals = 4;
        int duration = 60;
        int warmup = 10;
        boolean fixedHome = true;
        boolean drop = false;
        boolean indexes = true;
        int reportInterval = 10;
        for (int i = 1; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--drop")) {
                drop = true;
                continue;
            }
            if (option.equals("--no-indexes")) {
                indexes = false;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--url" -> url = value;
                case "--user" -> user = value;
                case "--password" -> password = value;
                case "--warehouses" -> warehouses = positive(option, value);
                case "--scale-down" -> scaleDown = positive(option, value);
                case "--loaders" -> loaders = positive(option, value);
                case "--terminals" -> terminals = positive(option, value);
                case "--duration" -> duration = positive(option, value);
                case "--warmup" -> warmup = atLeastZero(option, value);
                case "--report-interval" -> reportInterval = atLeastZero(option, value);
                case "--home" -> {
                    if (!value.equals("fixed") && !value.equals("random")) {
                        throw new IllegalArgumentException("--home must be fixed or random, got '" + value + "'");
                    }
                    fixedHome = value.equals("fixed");
                }
                default -> throw new IllegalArgumentException("unknown option '" + option + "'");
            }
        }
        TpccScale.of(warehouses, scaleDown);
        return new TpccOptions(args[0], url, user, password, warehouses, scaleDown, loaders, terminals, duration, warmup,
                fixedHome, drop, indexes, reportInterval);
    }

    TpccConnector connector() {
        return new TpccConnector(url, user, password);
    }

    TpccRun.Settings runSettings() {
        return new TpccRun.Settings(terminals, duration, warmup, fixedHome, reportInterval);
    }

    private static int positive(String option, String value) {
        int result = atLeastZero(option, value);
        if (result == 0) {
            throw new IllegalArgumentException(option + " must be at least 1");
        }
        return result;
    }

    private static int atLeastZero(String option, String value) {
        try {
            int result = Integer.parseInt(value);
            if (result < 0) {
                throw new IllegalArgumentException(option + " must not be negative, got " + value);
            }
            return result;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " expects a whole number, got '" + value + "'", e);
        }
    }
}
