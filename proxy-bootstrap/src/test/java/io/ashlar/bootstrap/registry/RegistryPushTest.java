package io.ashlar.bootstrap.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.route.rule.ShardingRules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code registry push} checks before it connects: every logical database compiles, as at start. */
class RegistryPushTest {

    private static final String DATABASE = """
            databaseName: sharding_db
            dataSources:
              ds_0:
                url: jdbc:postgresql://127.0.0.1:1/ds_0
                username: postgres
              ds_1:
                url: jdbc:postgresql://127.0.0.1:1/ds_1
                username: postgres
            rules:
              - !SHARDING
                tables:
                  t_order:
                    actualDataNodes: @NODES@
                    databaseStrategy:
                      standard:
                        shardingColumn: user_id
                        shardingAlgorithmName: by_user
                shardingAlgorithms:
                  by_user:
                    type: INLINE
                    props:
                      algorithm-expression: ds_${user_id % 2}
            """;

    private static ProxyConfiguration configuration(String nodes) {
        return new ProxyConfiguration(ServerConfig.DEFAULTS,
                List.of(ProxyConfigurationLoader.loadDatabase("config-sharding.yaml", DATABASE.replace("@NODES@", nodes))));
    }

    @Test
    void aConfigurationThatCompilesPasses() {
        RegistryPush.validate(configuration("ds_${0..1}.t_order"));
    }

    @Test
    void aDataNodeOnAnUnknownDataSourceIsRefusedWithTheStartMessage() {
        ConfigurationException refused = assertThrows(ConfigurationException.class,
                () -> RegistryPush.validate(configuration("ds_${0..2}.t_order")));
        String startMessage;
        try {
            ShardingRules.compile(configuration("ds_${0..2}.t_order").databases().get(0).rules(),
                    List.of("ds_0", "ds_1"), Map.of());
            throw new AssertionError("compiled");
        } catch (RuntimeException e) {
            startMessage = "logical database sharding_db: " + e.getMessage();
        }
        assertEquals(startMessage, refused.getMessage());
    }
}
