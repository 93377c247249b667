package io.ashlar.bootstrap.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.route.config.AlgorithmConfig;
import io.ashlar.route.config.AutoTableRuleConfig;
import io.ashlar.route.config.BindingTableGroupConfig;
import io.ashlar.route.config.BroadcastRuleConfig;
import io.ashlar.route.config.KeyGenerateStrategyConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import io.ashlar.route.config.SingleRuleConfig;
import io.ashlar.route.config.TableRuleConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** ShardingSphere-Proxy 5.4 and 5.5 configurations load unchanged. */
class ShardingSphere54ConfigTest {

    private final ProxyConfiguration config = ProxyConfigurationLoader.load(ConfigTestSupport.resourceDir("ss54"));

    @Test
    void readsClusterModeWithZooKeeper() {
        ModeConfig mode = config.server().mode();
        assertEquals(ModeConfig.Type.CLUSTER, mode.type());
        RepositoryConfig repository = mode.repository().orElseThrow();
        assertEquals("ZooKeeper", repository.type());
        assertEquals("localhost:2181", repository.prop("server-lists", ""));
        assertEquals("governance_ds", repository.prop("namespace", ""));
        assertEquals("500", repository.prop("retryIntervalMilliseconds", ""));
        assertEquals("digest-default", repository.prop("digest", "digest-default"));
    }

    @Test
    void readsUsersWithTheirAuthenticators() {
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.SCRAM_SHA_256, false, true),
                new ProxyUser("sharding", "%", "sharding", ProxyUser.MD5),
                new ProxyUser("legacy", "10.0.0.%", "p@ss: #word", ProxyUser.PASSWORD)), config.server().users());
    }

    @Test
    void readsTypedPropsAndIgnoresTheOthers() {
        ServerProps props = config.server().props();
        assertEquals(3307, props.port());
        assertEquals(50, props.backendQueryFetchSize());
        assertEquals(0, props.frontendMaxConnections());
        assertTrue(props.sqlShow());
        assertEquals(Optional.of("openGauss"), props.frontendDatabaseProtocolType());
        assertEquals(ServerProps.DEFAULT_BIND_ADDRESS, props.bindAddress());
    }

    @Test
    void loadsDatabasesInFileNameOrder() {
        assertEquals(List.of("auto_db", "sharding_db"), config.databases().stream().map(LogicalDatabaseConfig::name).toList());
    }

    @Test
    void readsTheDocumentationExample() {
        LogicalDatabaseConfig database = config.database("sharding_db").orElseThrow();
        assertEquals(new DataSourceConfig("ds_1", "jdbc:postgresql://127.0.0.1:5432/demo_ds_1", "postgres", "postgres", 20_000,
                DataSourceConfig.DEFAULT_IDLE_TIMEOUT_MILLISECONDS, DataSourceConfig.DEFAULT_MAX_LIFETIME_MILLISECONDS, 20, 2,
                Map.of("reWriteBatchedInserts", "true", "prepareThreshold", "3")), database.dataSources().get("ds_1"));
        assertEquals(2, database.rules().size());
        ShardingRuleConfig sharding = (ShardingRuleConfig) database.rules().get(0);
        assertEquals(List.of("t_order", "t_order_item", "t_account"), List.copyOf(sharding.tables().keySet()));
        assertEquals(new TableRuleConfig("t_account", Optional.of("ds_${0..1}.t_account_${0..1}"), Optional.empty(),
                Optional.of(new ShardingStrategyConfig.Standard("account_id", "t_account_inline")),
                Optional.of(new KeyGenerateStrategyConfig("account_id", "snowflake"))), sharding.tables().get("t_account"));
        assertEquals(Optional.of("account_id"), sharding.defaultShardingColumn());
        assertEquals(Optional.of(new ShardingStrategyConfig.Standard("user_id", "database_inline")), sharding.defaultDatabaseStrategy());
        assertEquals(List.of(new BindingTableGroupConfig(Optional.empty(), List.of("t_order", "t_order_item"))), sharding.bindingTables());
        assertEquals(new AlgorithmConfig("INLINE", Map.of("algorithm-expression", "t_order_${order_id % 2}")),
                sharding.shardingAlgorithms().get("t_order_inline"));
        assertEquals(AlgorithmConfig.of("SNOWFLAKE"), sharding.keyGenerators().get("snowflake"));
        assertEquals(new BroadcastRuleConfig(List.of("t_address")), database.rules().get(1));
    }

    @Test
    void readsAutoTablesComplexAndHintStrategiesAndSingleRule() {
        LogicalDatabaseConfig database = config.database("auto_db").orElseThrow();
        assertEquals("", database.dataSources().get("ds_0").password());
        assertEquals("Gauss@123", database.dataSources().get("ds_1").password());
        assertEquals("jdbc:opengauss://127.0.0.1:5433/auto_ds_1", database.dataSources().get("ds_1").url());
        ShardingRuleConfig sharding = (ShardingRuleConfig) database.rules().get(0);
        assertEquals(new AutoTableRuleConfig("t_order_auto", Optional.of("ds_0, ds_1"),
                Optional.of(new ShardingStrategyConfig.Standard("order_id", "auto_mod")),
                Optional.of(new KeyGenerateStrategyConfig("order_id", "uuid"))), sharding.autoTables().get("t_order_auto"));
        TableRuleConfig complex = sharding.tables().get("t_complex");
        assertEquals(Optional.of(new ShardingStrategyConfig.Complex(List.of("user_id", "order_id"), "complex_inline")), complex.databaseStrategy());
        assertEquals(Optional.of(new ShardingStrategyConfig.Hint("hint_inline")), complex.tableStrategy());
        assertEquals(Optional.empty(), sharding.tables().get("t_ds_only").actualDataNodes());
        assertEquals(List.of(new BindingTableGroupConfig(Optional.of("order_group"), List.of("t_order_auto", "t_item_auto"))),
                sharding.bindingTables());
        assertEquals(Map.of("sharding-columns", "user_id,order_id", "algorithm-expression", "ds_${(user_id + order_id) % 2}",
                "allow-range-query-with-inline-sharding", "true"), sharding.shardingAlgorithms().get("complex_inline").props());
        assertEquals("0.5", sharding.shardingAlgorithms().get("hint_inline").props().get("ratio"));
        assertEquals("4", sharding.shardingAlgorithms().get("auto_mod").props().get("sharding-count"));
        assertEquals(new SingleRuleConfig(List.of("ds_2.*", "*.t_config"), Optional.of("ds_2")), database.rules().get(1));
    }

    @Test
    void readsShardingSphere55GlobalAndDatabaseFiles() {
        ProxyConfiguration config55 = ProxyConfigurationLoader.load(ConfigTestSupport.resourceDir("ss55"));
        assertEquals(ModeConfig.Type.STANDALONE, config55.server().mode().type());
        assertEquals("JDBC", config55.server().mode().repository().orElseThrow().type());
        assertEquals(6543, config55.server().props().port());
        assertEquals("127.0.0.1", config55.server().props().bindAddress());
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT, false, true)), config55.server().users());
        assertEquals(1, config55.databases().size());
        assertEquals("sharding_db", config55.databases().get(0).name());
    }
}
