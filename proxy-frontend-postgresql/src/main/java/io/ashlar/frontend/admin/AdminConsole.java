package io.ashlar.frontend.admin;

import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.pg.ConnectSpec;
import io.ashlar.backend.pg.DataSourceHealth;
import io.ashlar.backend.pg.LinkPool;
import io.ashlar.backend.pg.LinkStats;
import io.ashlar.backend.pg.ServerLink;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.session.SessionIdentity;
import io.ashlar.backend.sharding.Preview;
import io.ashlar.frontend.auth.DatabaseGrants;
import io.ashlar.route.config.AlgorithmConfig;
import io.ashlar.route.config.AutoTableRuleConfig;
import io.ashlar.route.config.KeyGenerateStrategyConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import io.ashlar.route.config.TableRuleConfig;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Answers the admin commands ({@link AdminCommand}) of one client session: pgbouncer's SHOW POOLS, CLIENTS, SERVERS
 * and STATS for users server.yaml marks {@code admin: true} (they show every logical database and every client), and
 * ShardingSphere's DistSQL that reads rules (SHOW STORAGE UNITS, SHOW SHARDING TABLE RULES, SHOW SHARDING ALGORITHMS,
 * PREVIEW) for every user of the database it names. Runs on the session's thread, off the statement path: only text
 * that {@link AdminCommand#mayBe} lets through is looked at.
 */
public final class AdminConsole {

    /** What the proxy as a whole shows the console. */
    public interface Proxy {
        Map<String, LogicalDatabase> databases();

        Collection<ClientInfo> clients();
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final Proxy proxy;
    private final boolean admin;
    private final DatabaseGrants grants;
    private final LogicalDatabase database;
    private final SessionIdentity identity;

    /**
     * @param admin whether the session's user may run pgbouncer's commands
     * @param grants the logical databases the user may use (DistSQL's {@code FROM db} is checked against them)
     * @param database the session's logical database
     */
    public AdminConsole(Proxy proxy, boolean admin, DatabaseGrants grants, LogicalDatabase database, SessionIdentity identity) {
        this.proxy = proxy;
        this.admin = admin;
        this.grants = grants;
        this.database = database;
        this.identity = identity;
    }

    /** The answer to {@code sql} when it is an admin command, else null (the statement goes to the backend). */
    public AdminAnswer answer(String sql) {
        AdminCommand command = AdminCommand.parse(sql);
        if (command == null) {
            return null;
        }
        if (!admin && !command.openToEveryUser()) {
            return AdminAnswer.error(ErrorFields.error("42501", "permission denied for " + name(command),
                    "Only users that server.yaml marks admin: true may run the proxy's admin commands."));
        }
        try {
            return switch (command) {
                case AdminCommand.ShowPools ignored -> pools();
                case AdminCommand.ShowClients ignored -> clients();
                case AdminCommand.ShowServers ignored -> servers();
                case AdminCommand.ShowStats ignored -> stats();
                case AdminCommand.ShowStorageUnits units -> storageUnits(database(units.database()));
                case AdminCommand.ShowShardingTableRules rules -> tableRules(database(rules.database()), rules.table());
                case AdminCommand.ShowShardingAlgorithms algorithms -> algorithms(database(algorithms.database()));
                case AdminCommand.Preview preview -> preview(preview.statement());
                case AdminCommand.Unknown unknown -> AdminAnswer.error(ErrorFields.error("42601",
                        "syntax error in admin command \"" + unknown.sql().strip() + "\"",
                        "Ashlar's admin commands: SHOW POOLS, SHOW CLIENTS, SHOW SERVERS, SHOW STATS, SHOW STORAGE UNITS"
                                + " [FROM db], SHOW SHARDING TABLE RULES [FROM db], SHOW SHARDING TABLE RULE t [FROM db],"
                                + " SHOW SHARDING ALGORITHMS [FROM db], PREVIEW statement."));
            };
        } catch (StatementFailure failure) {
            return AdminAnswer.error(failure.fields());
        }
    }

    private static String name(AdminCommand command) {
        return switch (command) {
            case AdminCommand.ShowPools ignored -> "SHOW POOLS";
            case AdminCommand.ShowClients ignored -> "SHOW CLIENTS";
            case AdminCommand.ShowServers ignored -> "SHOW SERVERS";
            case AdminCommand.ShowStats ignored -> "SHOW STATS";
            default -> "this command";
        };
    }

    /** The database a DistSQL statement names ({@code FROM db}), or the session's. */
    private LogicalDatabase database(String name) throws StatementFailure {
        if (name == null) {
            return database;
        }
        if (!grants.allows(name)) {
            throw new StatementFailure(ErrorFields.error("42501", "permission denied for database \"" + name + "\""));
        }
        LogicalDatabase result = proxy.databases().get(name);
        if (result == null) {
            throw new StatementFailure(ErrorFields.error("3D000", "database \"" + name + "\" does not exist"));
        }
        return result;
    }

    // ------------------------------------------------------------------ pgbouncer

    /** pgbouncer's SHOW POOLS, a row per data source of each logical database (Ashlar pools per data source). */
    private AdminAnswer pools() {
        AdminAnswer result = AdminAnswer.result("SHOW")
                .column("database", AdminAnswer.TEXT).column("data_source", AdminAnswer.TEXT)
                .column("user", AdminAnswer.TEXT).column("cl_active", AdminAnswer.INT4)
                .column("cl_waiting", AdminAnswer.INT4).column("sv_active", AdminAnswer.INT4)
                .column("sv_idle", AdminAnswer.INT4).column("sv_login", AdminAnswer.INT4)
                .column("maxwait", AdminAnswer.INT8).column("maxwait_us", AdminAnswer.INT8)
                .column("pool_mode", AdminAnswer.TEXT).column("max_pool_size", AdminAnswer.INT4);
        for (LogicalDatabase each : proxy.databases().values()) {
            for (BackendDataSource source : each.dataSources()) {
                LinkPool pool = source.links();
                LinkPool.Usage usage = pool.usage();
                result.row(each.name(), source.name(), pool.spec().user(), usage.active(), usage.waiting(), usage.active(),
                        usage.idle(), usage.opening(), usage.maxWaitMicros() / 1_000_000, usage.maxWaitMicros() % 1_000_000,
                        "transaction", source.config().maxPoolSize());
            }
        }
        return result;
    }

    /** pgbouncer's SHOW CLIENTS. */
    private AdminAnswer clients() {
        AdminAnswer result = AdminAnswer.result("SHOW")
                .column("type", AdminAnswer.TEXT).column("user", AdminAnswer.TEXT).column("database", AdminAnswer.TEXT)
                .column("state", AdminAnswer.TEXT).column("addr", AdminAnswer.TEXT).column("port", AdminAnswer.INT4)
                .column("local_addr", AdminAnswer.TEXT).column("local_port", AdminAnswer.INT4)
                .column("connect_time", AdminAnswer.TEXT).column("ptr", AdminAnswer.INT4)
                .column("tls", AdminAnswer.TEXT).column("application_name", AdminAnswer.TEXT);
        for (ClientInfo each : proxy.clients()) {
            result.row("C", each.user(), each.database(), each.quiet().getAsBoolean() ? "idle" : "active", each.address(),
                    each.port(), each.localAddress(), each.localPort(), TIME.format(Instant.ofEpochMilli(each.connectedMillis())),
                    each.processId(), each.tls() ? "TLS" : "", each.applicationName());
        }
        return result;
    }

    /** pgbouncer's SHOW SERVERS: every backend connection of every data source. */
    private AdminAnswer servers() {
        AdminAnswer result = AdminAnswer.result("SHOW")
                .column("type", AdminAnswer.TEXT).column("user", AdminAnswer.TEXT).column("database", AdminAnswer.TEXT)
                .column("data_source", AdminAnswer.TEXT).column("state", AdminAnswer.TEXT)
                .column("addr", AdminAnswer.TEXT).column("port", AdminAnswer.INT4)
                .column("local_addr", AdminAnswer.TEXT).column("local_port", AdminAnswer.INT4)
                .column("connect_time", AdminAnswer.TEXT).column("remote_pid", AdminAnswer.INT4)
                .column("tls", AdminAnswer.TEXT);
        for (LogicalDatabase each : proxy.databases().values()) {
            for (BackendDataSource source : each.dataSources()) {
                ConnectSpec spec = source.links().spec();
                for (ServerLink link : source.links().links()) {
                    String localAddress = null;
                    Integer localPort = null;
                    if (link.localAddress() instanceof InetSocketAddress local) {
                        localAddress = local.getAddress().getHostAddress();
                        localPort = local.getPort();
                    }
                    result.row("S", link.loginUser(), spec.database(), source.name(), link.inUse() ? "active" : "idle",
                            spec.host(), spec.port(), localAddress, localPort,
                            TIME.format(Instant.ofEpochMilli(link.createdMillis())), link.backendProcessId(),
                            link.encrypted() ? "TLS" : "");
                }
            }
        }
        return result;
    }

    /** pgbouncer's SHOW STATS totals (times in microseconds), a row per data source of each logical database. */
    private AdminAnswer stats() {
        AdminAnswer result = AdminAnswer.result("SHOW")
                .column("database", AdminAnswer.TEXT).column("data_source", AdminAnswer.TEXT)
                .column("total_xact_count", AdminAnswer.INT8).column("total_query_count", AdminAnswer.INT8)
                .column("total_received", AdminAnswer.INT8).column("total_sent", AdminAnswer.INT8)
                .column("total_xact_time", AdminAnswer.INT8).column("total_query_time", AdminAnswer.INT8)
                .column("total_wait_time", AdminAnswer.INT8).column("total_wait_count", AdminAnswer.INT8)
                .column("total_server_connections", AdminAnswer.INT8);
        for (LogicalDatabase each : proxy.databases().values()) {
            for (BackendDataSource source : each.dataSources()) {
                LinkStats.Snapshot stats = source.links().usage().stats();
                // received and sent as pgbouncer counts them: from and to the clients, which for a data source's
                // connections is what the backend was sent and what it answered.
                result.row(each.name(), source.name(), stats.transactions(), stats.queries(), stats.bytesSent(),
                        stats.bytesReceived(), stats.transactionMicros(), stats.queryMicros(), stats.waitMicros(),
                        stats.waits(), source.links().opened());
            }
        }
        return result;
    }

    // ------------------------------------------------------------------ DistSQL

    /**
     * ShardingSphere's SHOW STORAGE UNITS: a data source per row with its pool settings, then Ashlar's own columns: its
     * health ({@code up} or {@code down}), since when, and why it is (or last was) down.
     *
     * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/distsql/syntax/rql/storage-unit-query/show-storage-unit/">SHOW STORAGE UNITS</a>
     */
    private static AdminAnswer storageUnits(LogicalDatabase database) {
        AdminAnswer result = AdminAnswer.result("SELECT")
                .column("name", AdminAnswer.TEXT).column("type", AdminAnswer.TEXT).column("host", AdminAnswer.TEXT)
                .column("port", AdminAnswer.INT4).column("db", AdminAnswer.TEXT)
                .column("connection_timeout_milliseconds", AdminAnswer.INT8)
                .column("idle_timeout_milliseconds", AdminAnswer.INT8)
                .column("max_lifetime_milliseconds", AdminAnswer.INT8)
                .column("max_pool_size", AdminAnswer.INT4).column("min_pool_size", AdminAnswer.INT4)
                .column("read_only", AdminAnswer.BOOL).column("other_attributes", AdminAnswer.TEXT)
                .column("status", AdminAnswer.TEXT).column("status_since", AdminAnswer.TEXT)
                .column("last_error", AdminAnswer.TEXT);
        for (BackendDataSource each : database.dataSources()) {
            ConnectSpec spec = each.links().spec();
            var config = each.config();
            DataSourceHealth.State health = each.health().state();
            result.row(each.name(), spec.openGauss() ? "openGauss" : "PostgreSQL", spec.host(), spec.port(),
                    spec.database(), config.connectionTimeoutMilliseconds(), config.idleTimeoutMilliseconds(),
                    config.maxLifetimeMilliseconds(), config.maxPoolSize(), config.minPoolSize(), false,
                    json(withoutSecrets(config.driverProperties())), health.up() ? "up" : "down",
                    TIME.format(health.since()), health.reason().isEmpty() ? null : health.reason());
        }
        return result;
    }

    private static Map<String, String> withoutSecrets(Map<String, String> properties) {
        java.util.Map<String, String> result = new java.util.TreeMap<>(properties);
        result.keySet().removeIf(key -> key.toLowerCase(Locale.ROOT).contains("password")
                || key.toLowerCase(Locale.ROOT).contains("sslkey"));
        return result;
    }

    /**
     * ShardingSphere's SHOW SHARDING TABLE RULES (5.4's columns up to the key generator's), tables then auto tables,
     * each strategy as configured or, when the table names none, the default one.
     *
     * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/distsql/syntax/rql/rule-query/sharding/show-sharding-table-rule/">SHOW SHARDING TABLE RULE</a>
     */
    private static AdminAnswer tableRules(LogicalDatabase database, String table) {
        AdminAnswer result = AdminAnswer.result("SELECT")
                .column("table", AdminAnswer.TEXT).column("actual_data_nodes", AdminAnswer.TEXT)
                .column("actual_data_sources", AdminAnswer.TEXT).column("database_strategy_type", AdminAnswer.TEXT)
                .column("database_sharding_column", AdminAnswer.TEXT)
                .column("database_sharding_algorithm_type", AdminAnswer.TEXT)
                .column("database_sharding_algorithm_props", AdminAnswer.TEXT)
                .column("table_strategy_type", AdminAnswer.TEXT).column("table_sharding_column", AdminAnswer.TEXT)
                .column("table_sharding_algorithm_type", AdminAnswer.TEXT)
                .column("table_sharding_algorithm_props", AdminAnswer.TEXT)
                .column("key_generate_column", AdminAnswer.TEXT).column("key_generator_type", AdminAnswer.TEXT)
                .column("key_generator_props", AdminAnswer.TEXT);
        for (Object each : database.ruleConfigs()) {
            if (!(each instanceof ShardingRuleConfig rule)) {
                continue;
            }
            for (TableRuleConfig tableRule : rule.tables().values()) {
                if (table != null && !tableRule.logicTable().equalsIgnoreCase(table)) {
                    continue;
                }
                Object[] row = new Object[14];
                row[0] = tableRule.logicTable();
                row[1] = tableRule.actualDataNodes().orElse("");
                row[2] = "";
                strategy(rule, tableRule.databaseStrategy().or(rule::defaultDatabaseStrategy), row, 3);
                strategy(rule, tableRule.tableStrategy().or(rule::defaultTableStrategy), row, 7);
                keyGenerator(rule, tableRule.keyGenerateStrategy().or(rule::defaultKeyGenerateStrategy), row, 11);
                result.row(row);
            }
            for (AutoTableRuleConfig autoTable : rule.autoTables().values()) {
                if (table != null && !autoTable.logicTable().equalsIgnoreCase(table)) {
                    continue;
                }
                Object[] row = new Object[14];
                row[0] = autoTable.logicTable();
                row[1] = "";
                row[2] = autoTable.actualDataSources().orElse("");
                strategy(rule, Optional.empty(), row, 3);
                strategy(rule, autoTable.shardingStrategy(), row, 7);
                keyGenerator(rule, autoTable.keyGenerateStrategy().or(rule::defaultKeyGenerateStrategy), row, 11);
                result.row(row);
            }
        }
        return result;
    }

    /** A strategy in four columns: its type, sharding column(s), algorithm type and algorithm properties. */
    private static void strategy(ShardingRuleConfig rule, Optional<ShardingStrategyConfig> strategy, Object[] row, int at) {
        row[at] = "";
        row[at + 1] = "";
        row[at + 2] = "";
        row[at + 3] = "";
        if (strategy.isEmpty()) {
            return;
        }
        ShardingStrategyConfig config = strategy.get();
        row[at] = switch (config) {
            case ShardingStrategyConfig.Standard standard -> {
                row[at + 1] = standard.shardingColumn();
                yield "STANDARD";
            }
            case ShardingStrategyConfig.Complex complex -> {
                row[at + 1] = String.join(",", complex.shardingColumns());
                yield "COMPLEX";
            }
            case ShardingStrategyConfig.Hint ignored -> "HINT";
            case ShardingStrategyConfig.None ignored -> "NONE";
        };
        config.algorithmName().map(name -> rule.shardingAlgorithms().get(name)).ifPresent(algorithm -> {
            row[at + 2] = algorithm.type();
            row[at + 3] = json(algorithm.props());
        });
    }

    private static void keyGenerator(ShardingRuleConfig rule, Optional<KeyGenerateStrategyConfig> strategy, Object[] row, int at) {
        row[at] = strategy.map(KeyGenerateStrategyConfig::column).orElse("");
        AlgorithmConfig generator = strategy.map(each -> rule.keyGenerators().get(each.keyGeneratorName())).orElse(null);
        row[at + 1] = generator == null ? "" : generator.type();
        row[at + 2] = generator == null ? "" : json(generator.props());
    }

    /**
     * ShardingSphere's SHOW SHARDING ALGORITHMS.
     *
     * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/distsql/syntax/rql/rule-query/sharding/show-sharding-algorithms/">SHOW SHARDING ALGORITHMS</a>
     */
    private static AdminAnswer algorithms(LogicalDatabase database) {
        AdminAnswer result = AdminAnswer.result("SELECT")
                .column("name", AdminAnswer.TEXT).column("type", AdminAnswer.TEXT).column("props", AdminAnswer.TEXT);
        for (Object each : database.ruleConfigs()) {
            if (each instanceof ShardingRuleConfig rule) {
                for (Map.Entry<String, AlgorithmConfig> algorithm : rule.shardingAlgorithms().entrySet()) {
                    result.row(algorithm.getKey(), algorithm.getValue().type(), json(algorithm.getValue().props()));
                }
            }
        }
        return result;
    }

    /**
     * ShardingSphere's PREVIEW: {@code data_source_name} and {@code actual_sql} per unit, and Ashlar's
     * {@code merge_plan} (the merge tree, on the first row; NULL when the units' results need no merge).
     */
    private AdminAnswer preview(String sql) throws StatementFailure {
        Preview preview = Preview.of(database, identity, sql);
        AdminAnswer result = AdminAnswer.result("SELECT")
                .column("data_source_name", AdminAnswer.TEXT).column("actual_sql", AdminAnswer.TEXT)
                .column("merge_plan", AdminAnswer.TEXT);
        boolean first = true;
        for (Preview.Unit each : preview.units()) {
            result.row(each.dataSource(), each.sql(), first ? preview.mergePlan().orElse(null) : null);
            first = false;
        }
        return result;
    }

    /** Properties as ShardingSphere 5.4 prints them: a JSON object. */
    static String json(Map<String, String> properties) {
        StringBuilder result = new StringBuilder("{");
        for (Map.Entry<String, String> each : properties.entrySet()) {
            if (result.length() > 1) {
                result.append(',');
            }
            quote(result, each.getKey());
            result.append(':');
            quote(result, each.getValue());
        }
        return result.append('}').toString();
    }

    private static void quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
