package io.ashlar.bootstrap.registry;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ConfigurationSwapper;
import io.ashlar.bootstrap.config.ModeConfig;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A proxy in Cluster mode: its logical databases come from the ZooKeeper registry, it announces itself there, and
 * it follows every change of the registry while it runs.
 *
 * <p>At start the local config-*.yaml files are uploaded where the registry has none; where it has one, the
 * registry wins (and the local copy is ignored, with a log line) unless {@code overwrite}. Then every logical
 * database of the registry is served. If ZooKeeper does not answer, a proxy with local files serves them and keeps
 * trying; one without fails.
 *
 * <p>Changes are applied on one thread of their own, never on ZooKeeper's event thread: a change event only
 * schedules a re-read of the registry, events arriving meanwhile fold into it, and each logical database whose YAML
 * differs from what is applied is compiled and swapped by {@link ProxyRuntime#apply}. On reconnection the whole
 * registry is re-read; the instance node is a Curator {@link PersistentNode}, which re-creates itself when its
 * session was lost.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/mode/">ShardingSphere-Proxy cluster mode</a>
 */
public final class ClusterProxy implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterProxy.class);

    private final ZooKeeperRegistry registry;
    private final ProxyRuntime runtime;
    private final boolean overwrite;
    private final List<LogicalDatabaseConfig> local;
    /** Touched only on {@link #changes}: the YAML applied per logical database. */
    private final Map<String, String> applied = new HashMap<>();
    private final ExecutorService changes = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("ashlar-registry").factory());
    private final AtomicBoolean syncPending = new AtomicBoolean();
    /** Touched only on {@link #changes}: whether the local files were reconciled with the registry yet. */
    private boolean uploaded;
    private final CuratorCache cache;
    private final PersistentNode instance;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ClusterProxy(ZooKeeperRegistry registry, ProxyRuntime runtime, boolean overwrite, List<LogicalDatabaseConfig> local,
                         Map<String, String> applied, boolean uploaded) {
        this.registry = registry;
        this.runtime = runtime;
        this.overwrite = overwrite;
        this.local = local;
        this.applied.putAll(applied);
        this.uploaded = uploaded;
        this.cache = CuratorCache.build(registry.client(), ZooKeeperRegistry.DATABASES);
        this.instance = new PersistentNode(registry.client(), CreateMode.EPHEMERAL, false,
                ZooKeeperRegistry.INSTANCES + "/" + instanceId(runtime.port()), ZooKeeperRegistry.bytes(instanceData(runtime.port())));
    }

    /**
     * Starts a proxy in Cluster mode.
     *
     * @param configuration conf/: server.yaml (in Cluster mode) and the local logical databases, possibly none
     * @param port port to listen on, -1 for server.yaml's
     * @param overwrite whether local files replace what the registry holds ({@code --overwrite}, or server.yaml's
     *                  {@code mode.overwrite})
     * @throws ConfigurationException if ZooKeeper cannot be reached and there is no local logical database
     */
    public static ClusterProxy start(ProxyConfiguration configuration, int port, boolean overwrite) throws InterruptedException {
        ModeConfig mode = configuration.server().mode();
        if (mode.type() != ModeConfig.Type.CLUSTER) {
            throw new ConfigurationException("server.yaml: mode is not Cluster");
        }
        boolean overwriting = overwrite || mode.overwrite();
        ZooKeeperRegistry registry = ZooKeeperRegistry.open(mode.repository().orElseThrow());
        try {
            List<LogicalDatabaseConfig> databases;
            Map<String, String> applied = new HashMap<>();
            boolean uploaded = false;
            if (registry.awaitConnected()) {
                Map<String, String> held = reconcile(registry, configuration.databases(), overwriting);
                uploaded = true;
                databases = new ArrayList<>();
                for (Map.Entry<String, String> each : held.entrySet()) {
                    databases.add(ProxyConfigurationLoader.loadDatabase("registry " + each.getKey(), each.getValue()));
                    applied.put(each.getKey(), each.getValue());
                }
            } else if (configuration.databases().isEmpty()) {
                throw new ConfigurationException("ZooKeeper at " + registry.describe()
                        + " does not answer, and conf/ holds no config-*.yaml to serve meanwhile; start ZooKeeper or check mode.repository.props.server-lists");
            } else {
                LOG.warn("ZooKeeper at {} does not answer: serving the local config-*.yaml files and retrying", registry.describe());
                databases = configuration.databases();
                for (LogicalDatabaseConfig each : databases) {
                    applied.put(each.name(), ConfigurationSwapper.toYaml(each));
                }
            }
            // Two-phase commits decide in ZooKeeper, where another proxy finishes them if this one dies; without
            // ZooKeeper at start, in the local transaction-log-directory (this proxy's next start finishes them).
            io.ashlar.backend.transaction.CommitDecisions decisions = null;
            if (uploaded && configuration.server().transaction().twoPhase()) {
                try {
                    decisions = ZooKeeperDecisions.open(registry);
                } catch (java.io.IOException e) {
                    LOG.warn("two-phase commit: decisions kept in the local transaction-log-directory: {}", e.getMessage());
                }
            }
            ProxyRuntime runtime = ProxyRuntime.start(new ProxyConfiguration(configuration.server(), databases), port, decisions);
            ClusterProxy result = new ClusterProxy(registry, runtime, overwriting, configuration.databases(), applied, uploaded);
            result.watch();
            return result;
        } catch (RuntimeException | InterruptedException e) {
            registry.close();
            throw e;
        } catch (Exception e) {
            registry.close();
            throw new ConfigurationException("registry " + registry.describe() + ": " + e.getMessage(), e);
        }
    }

    /** Uploads local databases the registry lacks (or all, overwriting); returns what the registry holds afterwards. */
    private static Map<String, String> reconcile(ZooKeeperRegistry registry, List<LogicalDatabaseConfig> local, boolean overwrite) throws Exception {
        for (LogicalDatabaseConfig each : local) {
            String yaml = ConfigurationSwapper.toYaml(each);
            if (overwrite) {
                registry.putDatabase(each.name(), yaml);
                LOG.info("logical database {}: local configuration written to the registry (overwrite)", each.name());
            } else if (registry.createDatabase(each.name(), yaml)) {
                LOG.info("logical database {}: uploaded to the registry", each.name());
            } else if (!yaml.equals(registry.database(each.name()).orElse(yaml))) {
                LOG.info("logical database {}: the registry holds a configuration; the local config file is ignored (--overwrite makes it win)", each.name());
            }
        }
        return registry.databases();
    }

    private void watch() {
        registry.client().getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.RECONNECTED || state == ConnectionState.CONNECTED) {
                LOG.info("registry {}: {}; re-reading it", registry.describe(), state == ConnectionState.CONNECTED ? "connected" : "reconnected");
                scheduleSync();
            } else if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
                LOG.warn("registry {}: connection {}; serving the last configuration meanwhile", registry.describe(),
                        state == ConnectionState.LOST ? "lost" : "suspended");
            }
        });
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forAll((type, before, after) -> scheduleSync())
                .build());
        cache.start();
        instance.start();
        scheduleSync();
    }

    private void scheduleSync() {
        if (closed.get() || !syncPending.compareAndSet(false, true)) {
            return;
        }
        changes.execute(() -> {
            syncPending.set(false);
            sync();
        });
    }

    /** Brings the served databases in line with the registry. Runs on {@link #changes} only. */
    private void sync() {
        if (closed.get() || !registry.client().getZookeeperClient().isConnected()) {
            return;
        }
        try {
            Map<String, String> held = uploaded ? registry.databases() : reconcile(registry, local, overwrite);
            uploaded = true;
            for (Map.Entry<String, String> each : held.entrySet()) {
                if (each.getValue().equals(applied.get(each.getKey()))) {
                    continue;
                }
                try {
                    runtime.apply(ProxyConfigurationLoader.loadDatabase("registry " + each.getKey(), each.getValue()));
                    applied.put(each.getKey(), each.getValue());
                } catch (RuntimeException e) {
                    applied.put(each.getKey(), each.getValue());
                    LOG.error("logical database {}: the registry's configuration is not applied, the previous one stays: {}",
                            each.getKey(), e.getMessage());
                }
            }
            if (held.isEmpty() && !applied.isEmpty()) {
                LOG.warn("registry {}: holds no logical database (was ZooKeeper's data lost?); still serving {}; push the configuration again",
                        registry.describe(), applied.keySet());
                return;
            }
            for (String each : new ArrayList<>(applied.keySet())) {
                if (!held.containsKey(each)) {
                    runtime.remove(each);
                    applied.remove(each);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("registry {}: cannot read it now ({}); serving the last configuration, retrying on reconnection",
                    registry.describe(), e.toString());
        }
    }

    private static String instanceId(int port) {
        return host() + ":" + port;
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
            return "127.0.0.1";
        }
    }

    private static String instanceData(int port) {
        String version = ClusterProxy.class.getPackage().getImplementationVersion();
        return "address: " + host() + "\nport: " + port + "\nversion: " + (version == null ? "dev" : version)
                + "\nstarted: " + Instant.now() + "\n";
    }

    /** The proxy itself. */
    /** Stands for this proxy's death, as far as ZooKeeper sees it: its session ends (its ephemeral nodes go), nothing else stops. */
    void loseRegistryForTests() {
        registry.close();
    }

    public ProxyRuntime runtime() {
        return runtime;
    }

    public int port() {
        return runtime.port();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            instance.close();
        } catch (Exception e) {
            LOG.warn("registry {}: cannot remove the instance node: {}", registry.describe(), e.toString());
        }
        cache.close();
        changes.shutdown();
        try {
            changes.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // The proxy first: its two-phase commits leave their decisions in ZooKeeper through the registry's client.
        runtime.close();
        registry.close();
    }
}
