package io.ashlar.bootstrap.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.route.config.BindingTableGroupConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import io.ashlar.route.config.TableRuleConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The ShardingSphere-Proxy 5.1.0 configurations of ../shared/peers load unchanged. */
class ShardingSphere51ConfigTest {

    @Test
    void loadsTwoShardConfigurationOfThePeers() {
        ProxyConfiguration config = ProxyConfigurationLoader.load(ConfigTestSupport.resourceDir("ss51-2shard"));
        ServerConfig server = config.server();
        assertEquals(ModeConfig.STANDALONE, server.mode());
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT),
                new ProxyUser("sharding", "%", "sharding", ProxyUser.PROTOCOL_DEFAULT)), server.users());
        assertEquals(ServerProps.DEFAULT_PORT, server.props().port());
        assertEquals(-1, server.props().backendQueryFetchSize());
        assertEquals(1, server.props().maxConnectionsSizePerQuery());
        assertEquals(0, server.props().frontendMaxConnections());
        assertFalse(server.props().sqlShow());

        assertEquals(1, config.databases().size());
        LogicalDatabaseConfig database = config.databases().get(0);
        assertEquals("sharding_db", database.name());
        assertEquals(List.of("ds_0", "ds_1"), List.copyOf(database.dataSources().keySet()));
        assertEquals(new DataSourceConfig("ds_1", "jdbc:postgresql://127.0.0.1:55432/bench_s1", "postgres", "", 30_000, 60_000,
                1_800_000, 64, 16, Map.of()), database.dataSources().get("ds_1"));

        ShardingRuleConfig sharding = (ShardingRuleConfig) database.rules().get(0);
        assertEquals(13, sharding.tables().size());
        assertEquals("pgbench_accounts", sharding.tables().keySet().iterator().next());
        TableRuleConfig accounts = sharding.tables().get("pgbench_accounts");
        assertEquals(Optional.of("ds_${0..1}.pgbench_accounts"), accounts.actualDataNodes());
        assertEquals(Optional.of(new ShardingStrategyConfig.Standard("aid", "mod_2")), accounts.databaseStrategy());
        assertEquals(Optional.empty(), accounts.tableStrategy());
        assertEquals(Optional.of("ds_0.bmsql_config"), sharding.tables().get("bmsql_config").actualDataNodes());
        assertEquals(List.of(new BindingTableGroupConfig(Optional.empty(), List.of("bmsql_warehouse", "bmsql_customer")),
                new BindingTableGroupConfig(Optional.empty(), List.of("bmsql_stock", "bmsql_district", "bmsql_order_line"))),
                sharding.bindingTables());
        assertEquals(List.of("bmsql_item"), sharding.broadcastTables());
        assertEquals(Optional.of(ShardingStrategyConfig.None.INSTANCE), sharding.defaultDatabaseStrategy());
        assertEquals(Optional.of(ShardingStrategyConfig.None.INSTANCE), sharding.defaultTableStrategy());
        assertEquals("MOD", sharding.shardingAlgorithms().get("mod_2").type());
        assertEquals(Map.of("sharding-count", "2"), sharding.shardingAlgorithms().get("mod_2").props());
    }

    @Test
    void loadsOneShardConfigurationWithoutStrategies() {
        ProxyConfiguration config = ProxyConfigurationLoader.load(ConfigTestSupport.resourceDir("ss51-1shard-nokey"));
        assertEquals(50, config.server().props().backendQueryFetchSize());
        ShardingRuleConfig sharding = (ShardingRuleConfig) config.databases().get(0).rules().get(0);
        TableRuleConfig accounts = sharding.tables().get("pgbench_accounts");
        assertTrue(accounts.databaseStrategy().isEmpty());
        assertEquals(Optional.of("ds_0.pgbench_accounts"), accounts.actualDataNodes());
    }
}
