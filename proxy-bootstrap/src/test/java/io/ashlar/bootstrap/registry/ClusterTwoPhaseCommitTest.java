package io.ashlar.bootstrap.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.config.ProxyConfiguration;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two-phase commit in Cluster mode keeps its decisions in ZooKeeper: a proxy that dies between its decision and
 * COMMIT PREPARED (stood for by a halt after the decision, then the end of its ZooKeeper session) has its transaction
 * committed by another live proxy of the cluster, and its prepared transactions that were not decided rolled back,
 * without waiting for its own restart. A proxy whose session is gone can decide nothing more under that instance.
 */
class ClusterTwoPhaseCommitTest {

    private static final long RECOVERY_LIMIT_MILLIS = 20_000;

    private static ClusterFixture fixture;

    @TempDir
    Path dir;

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
    void anotherProxyFinishesWhatADeadOneLeftInDoubt() throws Exception {
        String server = fixture.serverYaml("xa");
        ProxyConfiguration withFiles = ClusterFixture.load(ClusterFixture.conf(dir.resolve("a"), server, fixture.databaseYaml("user_id % 2")));
        ProxyConfiguration serverOnly = ClusterFixture.load(ClusterFixture.conf(dir.resolve("b"), server, ""));
        try (CuratorFramework zk = CuratorFrameworkFactory.builder().connectString(fixture.zooKeeper.getConnectString())
                .namespace("xa").retryPolicy(new RetryOneTime(100)).build()) {
            zk.start();
            try (ClusterProxy dying = ClusterProxy.start(withFiles, 0, false); ClusterProxy survivor = ClusterProxy.start(serverOnly, 0, false)) {
                String dead = dying.runtime().twoPhaseCommit().instanceId();
                assertNotNull(zk.checkExists().forPath(ZooKeeperDecisions.INSTANCES + "/" + dead), "the instance is registered");
                assertFalse(dead.equals(survivor.runtime().twoPhaseCommit().instanceId()));

                // A commit over both data sources stops after its decision, as if the proxy died there.
                dying.runtime().twoPhaseCommit().haltAfterDecision();
                Connection client = ClusterFixture.proxy(dying);
                CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> {
                    try (client; Statement statement = client.createStatement()) {
                        statement.execute("BEGIN");
                        statement.execute("INSERT INTO t_order (order_id, user_id) VALUES (1, 0)");
                        statement.execute("INSERT INTO t_order (order_id, user_id) VALUES (2, 1)");
                        statement.execute("COMMIT");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                List<String> decided = awaitDecisions(zk, dead);
                assertEquals(1, decided.size(), decided::toString);
                assertEquals(2, prepared("ashlar_" + dead + "_"), "prepared on both data sources");
                // And a transaction it prepared on ds_0 without deciding (it died during the PREPAREs).
                try (Connection shard = fixture.shard("ds_0"); Statement statement = shard.createStatement()) {
                    statement.execute("BEGIN");
                    statement.execute("INSERT INTO t_order (order_id, user_id) VALUES (3, 0)");
                    statement.execute("PREPARE TRANSACTION 'ashlar_" + dead + "_99_0'");
                }
                assertEquals(List.of(), orders(), "nothing committed yet");

                long died = System.nanoTime();
                dying.loseRegistryForTests();
                long deadline = died + TimeUnit.MILLISECONDS.toNanos(RECOVERY_LIMIT_MILLIS);
                while (prepared("ashlar_" + dead + "_") > 0 && System.nanoTime() - deadline < 0) {
                    Thread.sleep(50);
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - died);
                System.out.println("ClusterTwoPhaseCommitTest: the survivor finished the dead instance's transactions in " + millis + " ms");
                assertEquals(0, prepared("ashlar_" + dead + "_"), "still prepared after " + millis + " ms");
                assertEquals(List.of("1 ds_0", "2 ds_1"), orders(), "the decided transaction committed, the other rolled back");
                for (int i = 0; i < 100 && zk.checkExists().forPath(ZooKeeperDecisions.DECISIONS + "/" + dead) != null; i++) {
                    Thread.sleep(50);
                }
                assertNull(zk.checkExists().forPath(ZooKeeperDecisions.DECISIONS + "/" + dead), "the dead instance's decisions are gone");
                assertNull(zk.checkExists().forPath(ZooKeeperDecisions.RECOVERING + "/" + dead), "nobody recovers it any more");

                // The halted session ends; the dying proxy, cut off from ZooKeeper, cannot decide another commit.
                dying.runtime().twoPhaseCommit().endHalted();
                assertThrows(ExecutionException.class, () -> commit.get(30, TimeUnit.SECONDS));
                try (Connection other = ClusterFixture.proxy(dying); Statement statement = other.createStatement()) {
                    statement.execute("BEGIN");
                    statement.execute("INSERT INTO t_order (order_id, user_id) VALUES (4, 0)");
                    statement.execute("INSERT INTO t_order (order_id, user_id) VALUES (5, 1)");
                    SQLException refused = assertThrows(SQLException.class, () -> statement.execute("COMMIT"));
                    assertEquals("58030", refused.getSQLState(), refused::getMessage);
                }
                assertEquals(List.of("1 ds_0", "2 ds_1"), orders(), "the refused commit left nothing");
                assertEquals(0, prepared("ashlar_"), "nothing left prepared");

                // The survivor still commits over both data sources, and leaves nothing behind when it stops.
                String survivorId = survivor.runtime().twoPhaseCommit().instanceId();
                try (Connection c = ClusterFixture.proxy(survivor); Statement statement = c.createStatement()) {
                    statement.execute("BEGIN");
                    statement.execute("INSERT INTO t_order (order_id, user_id) VALUES (6, 0)");
                    statement.execute("INSERT INTO t_order (order_id, user_id) VALUES (7, 1)");
                    statement.execute("COMMIT");
                }
                assertEquals(List.of("1 ds_0", "2 ds_1", "6 ds_0", "7 ds_1"), orders());
                survivor.close();
                assertNull(zk.checkExists().forPath(ZooKeeperDecisions.DECISIONS + "/" + survivorId), "a clean stop leaves no decisions");
                assertNull(zk.checkExists().forPath(ZooKeeperDecisions.INSTANCES + "/" + survivorId));
            }
        }
    }

    private static List<String> awaitDecisions(CuratorFramework zk, String instance) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            List<String> decided = zk.getChildren().forPath(ZooKeeperDecisions.DECISIONS + "/" + instance);
            if (!decided.isEmpty()) {
                return decided;
            }
            assertTrue(System.nanoTime() - deadline < 0, "no decision in ZooKeeper within 30 s");
            Thread.sleep(20);
        }
    }

    /** Prepared transactions on the server whose gid starts with {@code prefix}. */
    private static int prepared(String prefix) throws SQLException {
        try (Connection c = fixture.shard("ds_0"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE '" + prefix + "%'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Every order on the shards, as "id data-source", by id. */
    private static List<String> orders() throws SQLException {
        List<String> result = new ArrayList<>();
        for (String each : new String[] {"ds_0", "ds_1"}) {
            try (Connection c = fixture.shard(each); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT order_id FROM t_order ORDER BY 1")) {
                while (rs.next()) {
                    result.add(rs.getLong(1) + " " + each);
                }
            }
        }
        result.sort(null);
        return result;
    }
}
