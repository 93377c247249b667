package io.ashlar.bootstrap.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.route.config.AlgorithmConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the swapper writes, the loader reads back into equal records: the registry may store YAML safely. */
class ConfigurationSwapperTest {

    private static LogicalDatabaseConfig roundTrip(LogicalDatabaseConfig database) {
        return ProxyConfigurationLoader.loadDatabase("registry.yaml", ConfigurationSwapper.toYaml(database));
    }

    @Test
    void everyExampleDatabaseSurvivesARoundTrip() {
        List<LogicalDatabaseConfig> databases = new ArrayList<>();
        for (String each : List.of("ss51-2shard", "ss51-1shard-nokey", "ss54", "ss55")) {
            databases.addAll(ProxyConfigurationLoader.load(ConfigTestSupport.resourceDir(each)).databases());
        }
        databases.addAll(ProxyConfigurationLoader.load(ExampleConfigTest.projectRoot().resolve("conf")).databases());
        databases.addAll(DemoConfiguration.load("jdbc:postgresql://h:1/a", "jdbc:postgresql://h:2/b", "u", "p").databases());
        assertEquals(7, databases.size());
        for (LogicalDatabaseConfig each : databases) {
            assertEquals(each, roundTrip(each), each.name());
        }
    }

    @Test
    void textThatLooksLikeOtherTypesStaysText() {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("count", "4");
        props.put("yes-text", "yes");
        props.put("null-text", "null");
        props.put("empty", "");
        props.put("float", "0.25");
        props.put("padded", "007");
        props.put("expr", "t_${id % 2}");
        props.put("flag", "true");
        DataSourceConfig source = new DataSourceConfig("ds_0", "jdbc:postgresql://h/db?sslmode=disable&x=1", "u: ser", "#not a comment: really",
                1, 0, 0, 3, 0, Map.of("options", "-c search_path=a,b", "prepareThreshold", "5"));
        ShardingRuleConfig sharding = new ShardingRuleConfig(Map.of(), Map.of(), List.of(), List.of("t_dict"), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Map.of("weird", new AlgorithmConfig("CLASS_BASED", props)), Map.of());
        LogicalDatabaseConfig database = new LogicalDatabaseConfig("db-1", Map.of("ds_0", source), List.of(sharding));
        String yaml = ConfigurationSwapper.toYaml(database);
        assertEquals(database, roundTrip(database), yaml);
        assertTrue(yaml.contains("count: 4\n"), yaml);
        assertTrue(yaml.contains("yes-text: 'yes'\n"), yaml);
    }

    @Test
    void serverConfigSurvivesARoundTrip() {
        for (String each : List.of("ss51-2shard", "ss54", "ss55")) {
            ServerConfig server = ProxyConfigurationLoader.load(ConfigTestSupport.resourceDir(each)).server();
            assertEquals(server, ProxyConfigurationLoader.loadServer("registry.yaml", ConfigurationSwapper.toYaml(server)), each);
        }
        ServerConfig custom = new ServerConfig(ModeConfig.STANDALONE, List.of(new ProxyUser("a b", "10.0.0.%", "p:w #1", ProxyUser.MD5)),
                ServerProps.DEFAULTS.withPort(6000));
        assertEquals(custom, ProxyConfigurationLoader.loadServer("registry.yaml", ConfigurationSwapper.toYaml(custom)));
        ServerConfig door = ProxyConfigurationLoader.loadServer("server.yaml", """
                authority:
                  users:
                    - user: app@10.0.0.%
                      password: secret
                      sslRequired: true
                    - user: report
                      password: other
                      authenticationMethod: md5
                  authenticators:
                    scram:
                      type: SCRAM_SHA256
                  defaultAuthenticator: scram
                  privilege:
                    type: DATABASE_PERMITTED
                    props:
                      user-database-mappings: app@10.0.0.%=orders, report@=orders, report@%=reports
                props:
                  proxy-bind-address: 10.0.0.1,127.0.0.1
                  proxy-frontend-ssl-enabled: true
                  proxy-frontend-ssl-version: TLSv1.3
                  proxy-frontend-ssl-cipher: TLS_AES_256_GCM_SHA384
                  proxy-frontend-ssl-cert-file: /etc/ashlar/server.crt
                  proxy-frontend-ssl-key-file: /etc/ashlar/server.key
                  proxy-frontend-ssl-required: true
                  proxy-frontend-authentication-timeout-seconds: 10
                  proxy-frontend-auth-delay-milliseconds: 250
                """);
        assertEquals(door, ProxyConfigurationLoader.loadServer("registry.yaml", ConfigurationSwapper.toYaml(door)));
    }

    @Test
    void writesTheShardingSphere54Shape() {
        LogicalDatabaseConfig database = ProxyConfigurationLoader.load(ConfigTestSupport.resourceDir("ss51-2shard")).databases().get(0);
        String yaml = ConfigurationSwapper.toYaml(database);
        assertTrue(yaml.startsWith("databaseName: sharding_db\n"), yaml);
        assertTrue(yaml.contains("\n  - !SHARDING\n"), yaml);
        assertTrue(yaml.contains("\n      none:\n") || yaml.contains("\n      none: \n"), yaml);
    }

    @Test
    void unknownRuleObjectsAreRefused() {
        LogicalDatabaseConfig database = new LogicalDatabaseConfig("db", Map.of(), List.of("not a rule"));
        assertThrows(IllegalArgumentException.class, () -> ConfigurationSwapper.toYaml(database));
    }
}
