package io.ashlar.bootstrap.registry;

import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.RepositoryConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

/**
 * The registry in ZooKeeper, reached through Apache Curator, where proxies of one cluster share their logical
 * databases and announce themselves. Layout under {@code /<namespace>} (see docs/cluster.md):
 * <pre>
 * /databases/&lt;name&gt;/config     the logical database as config-*.yaml text
 * /instances/&lt;host:port&gt;      ephemeral, one per live proxy: address, port, version, start time
 * </pre>
 *
 * <p>The connection properties are ShardingSphere's ZooKeeper repository properties, mapped as it maps them:
 * {@code retryIntervalMilliseconds} and {@code maxRetries} make the retry policy and bound the wait for the first
 * connection, {@code timeToLiveSeconds} is the session timeout, {@code operationTimeoutMilliseconds} the connection
 * timeout. Curator keeps reconnecting in the background for as long as the registry is open.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/common-config/builtin-algorithm/metadata-repository/">ShardingSphere ZooKeeper repository</a>
 */
public final class ZooKeeperRegistry implements AutoCloseable {

    static final String DATABASES = "/databases";
    static final String INSTANCES = "/instances";
    private static final String CONFIG = "config";

    private final CuratorFramework client;
    private final String serverLists;
    private final String namespace;
    private final long connectWaitMillis;

    private ZooKeeperRegistry(CuratorFramework client, String serverLists, String namespace, long connectWaitMillis) {
        this.client = client;
        this.serverLists = serverLists;
        this.namespace = namespace;
        this.connectWaitMillis = connectWaitMillis;
    }

    /**
     * Starts a client for the repository of server.yaml's {@code mode:}; it connects in the background.
     *
     * @throws ConfigurationException for a property that is not a number
     */
    public static ZooKeeperRegistry open(RepositoryConfig repository) {
        String serverLists = repository.prop("server-lists", "");
        if (serverLists.isEmpty()) {
            throw new ConfigurationException("mode.repository.props: missing 'server-lists' (host:port of ZooKeeper)");
        }
        String namespace = repository.prop("namespace", "governance_ds");
        int retryInterval = intProp(repository, "retryIntervalMilliseconds", 500);
        int maxRetries = intProp(repository, "maxRetries", 3);
        int timeToLive = intProp(repository, "timeToLiveSeconds", 60);
        int operationTimeout = intProp(repository, "operationTimeoutMilliseconds", 500);
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(serverLists)
                .namespace(namespace)
                .retryPolicy(new ExponentialBackoffRetry(Math.max(retryInterval, 1), Math.max(maxRetries, 0),
                        Math.max(retryInterval, 1) * Math.max(maxRetries, 1)));
        if (timeToLive > 0) {
            builder.sessionTimeoutMs(timeToLive * 1000);
        }
        if (operationTimeout > 0) {
            builder.connectionTimeoutMs(operationTimeout);
        }
        CuratorFramework client = builder.build();
        client.start();
        long wait = Math.max((long) retryInterval * Math.max(maxRetries, 1), 1_000L);
        return new ZooKeeperRegistry(client, serverLists, namespace, wait);
    }

    private static int intProp(RepositoryConfig repository, String key, int defaultValue) {
        String text = repository.prop(key, Integer.toString(defaultValue));
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new ConfigurationException("mode.repository.props." + key + ": expected an integer, got '" + text + "'", e);
        }
    }

    /** Waits for the first connection, as long as the retry properties allow; false if ZooKeeper did not answer. */
    public boolean awaitConnected() throws InterruptedException {
        return client.blockUntilConnected((int) connectWaitMillis, TimeUnit.MILLISECONDS);
    }

    /** Where the registry is, for messages: {@code server-lists/namespace}. */
    public String describe() {
        return serverLists + "/" + namespace;
    }

    /** The logical databases the registry holds: name to config-*.yaml text, sorted by name. */
    public Map<String, String> databases() throws Exception {
        Map<String, String> result = new TreeMap<>();
        for (String each : children(DATABASES)) {
            database(each).ifPresent(yaml -> result.put(each, yaml));
        }
        return result;
    }

    /** One logical database's YAML, if the registry holds it. */
    public Optional<String> database(String name) throws Exception {
        return read(databasePath(name));
    }

    /** Creates the logical database's node if there is none; false if one existed (and was left alone). */
    public boolean createDatabase(String name, String yaml) throws Exception {
        try {
            client.create().creatingParentsIfNeeded().forPath(databasePath(name), bytes(yaml));
            return true;
        } catch (KeeperException.NodeExistsException e) {
            return false;
        }
    }

    /** Writes the logical database, creating or replacing it. */
    public void putDatabase(String name, String yaml) throws Exception {
        if (!createDatabase(name, yaml)) {
            client.setData().forPath(databasePath(name), bytes(yaml));
        }
    }

    /** Removes a logical database from the registry (every proxy stops serving it). */
    public void removeDatabase(String name) throws Exception {
        try {
            client.delete().deletingChildrenIfNeeded().forPath(DATABASES + "/" + name);
        } catch (KeeperException.NoNodeException e) {
            // already gone
        }
    }

    /** The live proxies: {@code host:port} to what each wrote about itself, sorted. */
    public Map<String, String> instances() throws Exception {
        Map<String, String> result = new TreeMap<>();
        for (String each : children(INSTANCES)) {
            read(INSTANCES + "/" + each).ifPresent(text -> result.put(each, text));
        }
        return result;
    }

    CuratorFramework client() {
        return client;
    }

    static String databasePath(String name) {
        return DATABASES + "/" + name + "/" + CONFIG;
    }

    private List<String> children(String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    private Optional<String> read(String path) throws Exception {
        try {
            byte[] data = client.getData().forPath(path);
            return data == null ? Optional.empty() : Optional.of(new String(data, StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        }
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        client.close();
    }
}
