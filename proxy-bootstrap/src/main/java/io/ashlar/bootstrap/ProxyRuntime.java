package io.ashlar.bootstrap;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.sharding.SingleTableScanner;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.frontend.auth.PasswordVerifiers;
import io.ashlar.frontend.server.FrontendContext;
import io.ashlar.frontend.server.PgServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running proxy: the logical databases with their data source pools, and the frontend
 * listening for clients. Built from a loaded configuration with plain constructors; closing it
 * stops accepting, lets running statements finish (bounded) and closes the pools.
 */
public final class ProxyRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyRuntime.class);
    private static final long SHUTDOWN_GRACE_MILLIS = 10_000;

    private final Map<String, LogicalDatabase> databases;
    private final FrontendContext context;
    private final PgServer server;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private ProxyRuntime(Map<String, LogicalDatabase> databases, FrontendContext context, PgServer server) {
        this.databases = databases;
        this.context = context;
        this.server = server;
    }

    /**
     * Opens the data sources and starts listening.
     *
     * @param port port to listen on, overriding server.yaml; -1 to take server.yaml's (0 picks a free port)
     */
    public static ProxyRuntime start(ProxyConfiguration configuration, int port) throws InterruptedException {
        long started = System.nanoTime();
        Map<String, LogicalDatabase> databases = openDatabases(configuration.databases());
        Map<String, PasswordVerifiers> users = new LinkedHashMap<>();
        for (ProxyUser user : configuration.server().users()) {
            users.put(user.name(), PasswordVerifiers.forUser(user));
        }
        var props = configuration.server().props();
        FrontendContext context = new FrontendContext(users, databases, props.frontendMaxConnections());
        PgServer server = new PgServer(context, props.bindAddress(), port >= 0 ? port : props.port(),
                props.frontendExecutorSize());
        try {
            server.start();
        } catch (RuntimeException | InterruptedException e) {
            context.close();
            databases.values().forEach(LogicalDatabase::close);
            throw e;
        }
        LOG.info("Ashlar ready on port {} in {} ms: logical databases {}", server.port(),
                (System.nanoTime() - started) / 1_000_000, databases.keySet());
        return new ProxyRuntime(databases, context, server);
    }

    private static Map<String, LogicalDatabase> openDatabases(List<LogicalDatabaseConfig> configs) {
        Map<String, LogicalDatabase> result = new LinkedHashMap<>();
        for (LogicalDatabaseConfig config : configs) {
            if (config.dataSources().isEmpty()) {
                LOG.warn("logical database {} has no data sources: it is not served", config.name());
                continue;
            }
            List<BackendDataSource> dataSources = new ArrayList<>();
            for (DataSourceConfig dataSource : config.dataSources().values()) {
                BackendDataSource opened = BackendDataSource.open(dataSource);
                if (!opened.warmUp()) {
                    LOG.warn("data source {} of {} ({}) is not reachable now; statements routed to it fail until it is",
                            dataSource.name(), config.name(), dataSource.url());
                }
                dataSources.add(opened);
            }
            ShardingRules rules = ShardingRules.NONE;
            if (!config.rules().isEmpty()) {
                Map<String, String> singleTables = SingleTableScanner.scan(dataSources);
                try {
                    rules = ShardingRules.compile(config.rules(), List.copyOf(config.dataSources().keySet()), singleTables);
                } catch (RuntimeException e) {
                    dataSources.forEach(BackendDataSource::close);
                    throw new ConfigurationException("logical database " + config.name() + ": " + e.getMessage(), e);
                }
            }
            result.put(config.name(), new LogicalDatabase(config.name(), dataSources, rules));
        }
        return result;
    }

    public int port() {
        return server.port();
    }

    public Map<String, LogicalDatabase> databases() {
        return databases;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.shutdown(SHUTDOWN_GRACE_MILLIS);
        context.close();
        for (LogicalDatabase database : databases.values()) {
            database.close();
        }
        LOG.info("Ashlar stopped");
    }
}
