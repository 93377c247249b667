package io.ashlar.bootstrap.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proxies in Cluster mode against real ZooKeeper and PostgreSQL: they share the registry's rules, follow a change
 * pushed while clients run, refuse a bad push, and ride out ZooKeeper going away.
 */
class ClusterModeTest {

    /** How long a change may take to reach a proxy before the test calls it lost (generous: 2 shared cores). */
    private static final long PROPAGATION_LIMIT_MILLIS = 5_000;

    private static ClusterFixture fixture;

    @TempDir
    Path dir;

    private final AtomicLong nextOrderId = new AtomicLong(1);

    @BeforeAll
    static void startServers() throws Exception {
        fixture = ClusterFixture.start();
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    @BeforeEach
    void emptyShards() throws SQLException {
        fixture.resetShards();
    }

    @Test
    void secondProxyWithServerYamlAloneRoutesLikeTheFirst() throws Exception {
        String server = fixture.serverYaml("two");
        ProxyConfiguration withFiles = ClusterFixture.load(ClusterFixture.conf(dir.resolve("a"), server, fixture.databaseYaml("user_id % 2")));
        ProxyConfiguration serverOnly = ClusterFixture.load(ClusterFixture.conf(dir.resolve("b"), server, ""));
        try (ClusterProxy first = ClusterProxy.start(withFiles, 0, false); ClusterProxy second = ClusterProxy.start(serverOnly, 0, false)) {
            for (int userId = 1; userId <= 4; userId++) {
                long onFirst = insert(first, userId);
                long onSecond = insert(second, userId);
                String expected = "ds_" + userId % 2;
                assertEquals(expected, fixture.shardOf(onFirst), "user " + userId + " through the first proxy");
                assertEquals(expected, fixture.shardOf(onSecond), "user " + userId + " through the second proxy");
            }
            try (Connection connection = ClusterFixture.proxy(second); Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT count(*) FROM t_order")) {
                assertTrue(rows.next());
                assertEquals(8, rows.getLong(1));
            }
            try (ZooKeeperRegistry registry = registry(server)) {
                awaitInstances(registry, first, second);
                String shown = RegistryShow.show(registry);
                assertTrue(shown.contains("databaseName: sharding_db"), shown);
                assertTrue(shown.contains(":" + first.port() + ":") && shown.contains(":" + second.port() + ":"), shown);
            }
        }
    }

    @Test
    void registryWinsOverALocalCopyUnlessOverwrite() throws Exception {
        String server = fixture.serverYaml("wins");
        ProxyConfiguration original = ClusterFixture.load(ClusterFixture.conf(dir.resolve("a"), server, fixture.databaseYaml("user_id % 2")));
        ProxyConfiguration flipped = ClusterFixture.load(ClusterFixture.conf(dir.resolve("b"), server, fixture.databaseYaml("(user_id + 1) % 2")));
        try (ClusterProxy first = ClusterProxy.start(original, 0, false)) {
            try (ClusterProxy second = ClusterProxy.start(flipped, 0, false)) {
                assertEquals("ds_1", fixture.shardOf(insert(second, 1)), "the registry's rule, not the local copy");
            }
            try (ClusterProxy second = ClusterProxy.start(flipped, 0, true)) {
                assertEquals("ds_0", fixture.shardOf(insert(second, 1)), "--overwrite: the local copy");
                awaitRoute(first, 1, "ds_0");
            }
        }
    }

    @Test
    void ruleChangePushedUnderLoadReachesBothProxiesWithoutFailingAStatement() throws Exception {
        String server = fixture.serverYaml("live");
        ProxyConfiguration withFiles = ClusterFixture.load(ClusterFixture.conf(dir.resolve("a"), server, fixture.databaseYaml("user_id % 2")));
        ProxyConfiguration serverOnly = ClusterFixture.load(ClusterFixture.conf(dir.resolve("b"), server, ""));
        try (ClusterProxy first = ClusterProxy.start(withFiles, 0, false); ClusterProxy second = ClusterProxy.start(serverOnly, 0, false);
                Load load = new Load(List.of(first, second))) {
            Thread.sleep(300);
            ProxyConfiguration changed = ClusterFixture.load(ClusterFixture.conf(dir.resolve("push"), server, fixture.databaseYaml("(user_id + 1) % 2")));
            try (ZooKeeperRegistry registry = registry(server)) {
                assertEquals(List.of("changed sharding_db"), RegistryPush.push(changed, registry, false));
                assertEquals(List.of(), RegistryPush.push(changed, registry, false), "a second push changes nothing");
            }
            awaitRoute(first, 1, "ds_0");
            awaitRoute(second, 1, "ds_0");
            Thread.sleep(300);
            load.assertNoFailure();
        }
    }

    @Test
    void pushThatDoesNotCompileIsRefusedAndChangesNothing() throws Exception {
        String server = fixture.serverYaml("bad");
        ProxyConfiguration withFiles = ClusterFixture.load(ClusterFixture.conf(dir.resolve("a"), server, fixture.databaseYaml("user_id % 2")));
        try (ClusterProxy proxy = ClusterProxy.start(withFiles, 0, false); ZooKeeperRegistry registry = registry(server)) {
            Map<String, String> before = registry.databases();
            String unknownDataSource = fixture.databaseYaml("user_id % 2").replace("ds_${0..1}.t_order", "ds_${0..2}.t_order");
            ProxyConfiguration bad = ClusterFixture.load(ClusterFixture.conf(dir.resolve("bad"), server, unknownDataSource));
            ConfigurationException refused = assertThrows(ConfigurationException.class, () -> RegistryPush.push(bad, registry, true));
            assertTrue(refused.getMessage().startsWith("logical database sharding_db: "), refused.getMessage());
            assertTrue(refused.getMessage().contains("ds_2"), refused.getMessage());
            assertEquals(before, registry.databases());
            assertEquals("ds_1", fixture.shardOf(insert(proxy, 1)));
        }
    }

    @Test
    void zooKeeperStoppedAndRestartedUnderLoad() throws Exception {
        String server = fixture.serverYaml("restart", 2);
        ProxyConfiguration withFiles = ClusterFixture.load(ClusterFixture.conf(dir.resolve("a"), server, fixture.databaseYaml("user_id % 2")));
        ProxyConfiguration serverOnly = ClusterFixture.load(ClusterFixture.conf(dir.resolve("b"), server, ""));
        try (ClusterProxy first = ClusterProxy.start(withFiles, 0, false); ClusterProxy second = ClusterProxy.start(serverOnly, 0, false);
                Load load = new Load(List.of(first, second))) {
            fixture.zooKeeper.stop();
            // Longer than the 2 s session: the proxies' sessions expire, and their instance nodes (once the
            // restarted server expires the old sessions too) must be created again by the new ones.
            Thread.sleep(4_000);
            assertEquals("ds_1", fixture.shardOf(insert(first, 1)), "served while ZooKeeper is away");
            assertEquals("ds_1", fixture.shardOf(insert(second, 1)), "served while ZooKeeper is away");
            fixture.zooKeeper.restart();
            try (ZooKeeperRegistry registry = registry(server)) {
                awaitInstances(registry, first, second);
                Thread.sleep(3_000);
                awaitInstances(registry, first, second);
                ProxyConfiguration changed = ClusterFixture.load(ClusterFixture.conf(dir.resolve("push"), server, fixture.databaseYaml("(user_id + 1) % 2")));
                RegistryPush.push(changed, registry, false);
            }
            awaitRoute(first, 1, "ds_0");
            awaitRoute(second, 1, "ds_0");
            load.assertNoFailure();
        }
    }

    @Test
    void zooKeeperDownAtStart() throws Exception {
        String server = fixture.serverYaml("down");
        Path withFiles = ClusterFixture.conf(dir.resolve("a"), server, fixture.databaseYaml("user_id % 2"));
        Path serverOnly = ClusterFixture.conf(dir.resolve("b"), server, "");
        fixture.zooKeeper.stop();
        try {
            ConfigurationException refused = assertThrows(ConfigurationException.class,
                    () -> ClusterProxy.start(ClusterFixture.load(serverOnly), 0, false));
            assertTrue(refused.getMessage().contains("does not answer"), refused.getMessage());
            try (ClusterProxy proxy = ClusterProxy.start(ClusterFixture.load(withFiles), 0, false)) {
                assertEquals("ds_1", fixture.shardOf(insert(proxy, 1)), "the local files are served");
                fixture.zooKeeper.restart();
                try (ZooKeeperRegistry registry = registry(server)) {
                    awaitInstances(registry, proxy);
                    long deadline = System.nanoTime() + PROPAGATION_LIMIT_MILLIS * 1_000_000;
                    while (registry.database(ClusterFixture.DATABASE).isEmpty() && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                    }
                    assertTrue(registry.database(ClusterFixture.DATABASE).isPresent(), "uploaded once ZooKeeper answered");
                }
            }
        } finally {
            fixture.zooKeeper.restart();
        }
    }

    private static ZooKeeperRegistry registry(String serverYaml) throws Exception {
        ZooKeeperRegistry result = ZooKeeperRegistry.open(io.ashlar.bootstrap.config.ProxyConfigurationLoader
                .loadServer("server.yaml", serverYaml).mode().repository().orElseThrow());
        assertTrue(result.awaitConnected(), "ZooKeeper answers");
        return result;
    }

    private static void awaitInstances(ZooKeeperRegistry registry, ClusterProxy... proxies) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        List<String> missing = new ArrayList<>();
        do {
            missing.clear();
            Map<String, String> instances = registry.instances();
            for (ClusterProxy each : proxies) {
                if (instances.keySet().stream().noneMatch(key -> key.endsWith(":" + each.port()))) {
                    missing.add(":" + each.port());
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("instances not registered: " + missing + " in " + registry.instances());
    }

    /** Inserts rows for the user through the proxy until one lands on the expected shard, or the limit passes. */
    private void awaitRoute(ClusterProxy proxy, int userId, String expected) throws Exception {
        long deadline = System.nanoTime() + PROPAGATION_LIMIT_MILLIS * 1_000_000;
        String actual;
        do {
            actual = fixture.shardOf(insert(proxy, userId));
            if (actual.equals(expected)) {
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        assertEquals(expected, actual, "user " + userId + " through the proxy on port " + proxy.port());
    }

    private long insert(ClusterProxy proxy, int userId) throws SQLException {
        long result = nextOrderId.getAndIncrement();
        try (Connection connection = ClusterFixture.proxy(proxy);
                PreparedStatement statement = connection.prepareStatement("INSERT INTO t_order (order_id, user_id) VALUES (?, ?)")) {
            statement.setLong(1, result);
            statement.setInt(2, userId);
            assertEquals(1, statement.executeUpdate());
        }
        return result;
    }

    /** One client per proxy running inserts and reads back to back on one connection, collecting failures. */
    private final class Load implements AutoCloseable {

        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<String> failures = new CopyOnWriteArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicLong statements = new AtomicLong();

        Load(List<ClusterProxy> proxies) {
            for (ClusterProxy each : proxies) {
                threads.add(Thread.ofPlatform().name("load-" + each.port()).start(() -> run(each)));
            }
        }

        private void run(ClusterProxy proxy) {
            try (Connection connection = ClusterFixture.proxy(proxy);
                    PreparedStatement insert = connection.prepareStatement("INSERT INTO t_order (order_id, user_id) VALUES (?, ?)");
                    PreparedStatement read = connection.prepareStatement("SELECT count(*) FROM t_order WHERE user_id = ?")) {
                while (!stop.get()) {
                    long id = nextOrderId.getAndIncrement();
                    try {
                        insert.setLong(1, id);
                        insert.setInt(2, (int) (id % 1000));
                        insert.executeUpdate();
                        read.setInt(1, (int) (id % 1000));
                        try (ResultSet rows = read.executeQuery()) {
                            rows.next();
                        }
                        statements.incrementAndGet();
                    } catch (SQLException e) {
                        failures.add("order " + id + " on port " + proxy.port() + ": " + e.getMessage());
                    }
                }
            } catch (SQLException e) {
                failures.add("port " + proxy.port() + ": " + e.getMessage());
            }
        }

        void assertNoFailure() throws InterruptedException {
            close();
            assertEquals(List.of(), failures.size() > 5 ? failures.subList(0, 5) : failures);
            assertTrue(statements.get() > 0, "the load ran");
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            for (Thread each : threads) {
                each.join(30_000);
            }
        }
    }

}
