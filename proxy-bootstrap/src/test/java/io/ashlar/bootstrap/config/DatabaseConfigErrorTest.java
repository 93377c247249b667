package io.ashlar.bootstrap.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every way a config-*.yaml can be wrong gives a message naming the file, the key path and what was expected. */
class DatabaseConfigErrorTest {

    private static final String HEAD = """
            databaseName: sharding_db
            dataSources:
              ds_0:
                url: jdbc:postgresql://127.0.0.1:5432/ds_0
            """;

    private static String errorOf(String yaml) {
        return assertThrows(ConfigurationException.class, () -> ProxyConfigurationLoader.loadDatabase("config-x.yaml", yaml)).getMessage();
    }

    private static void assertErrorContains(String expected, String yaml) {
        String message = errorOf(yaml);
        assertTrue(message.startsWith("config-x.yaml: "), message);
        assertTrue(message.contains(expected), () -> "expected <" + expected + "> in <" + message + ">");
    }

    @Test
    void misspeltStrategyKeyNamesThePathAndTheExpectedKeys() {
        assertEquals("config-x.yaml: rules[0].!SHARDING.tables.t_order.databaseStrategy.standard: unknown key 'shardingColum' "
                + "(expected one of: shardingColumn, shardingAlgorithmName) (line 12, column 11)", errorOf(HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order
                      databaseStrategy:
                        standard:
                          shardingColum: user_id
                          shardingAlgorithmName: mod
                  shardingAlgorithms:
                    mod:
                      type: MOD
                """));
    }

    @Test
    void nonNumericPoolSizeNamesTheValue() {
        assertEquals("config-x.yaml: dataSources.ds_0.maxPoolSize: expected a positive integer, got 'ten' (line 5, column 18)",
                errorOf(HEAD + "    maxPoolSize: ten\n"));
        assertErrorContains("dataSources.ds_0.maxPoolSize: expected a positive integer, got '0'", HEAD + "    maxPoolSize: 0\n");
        assertErrorContains("dataSources.ds_0.connectionTimeoutMilliseconds: expected a positive integer, got '-5'",
                HEAD + "    connectionTimeoutMilliseconds: -5\n");
    }

    @Test
    void tlsSettingsAreReadAndWhatCannotWorkIsRefusedWhereItIsWritten() {
        String plain = "databaseName: db\ndataSources:\n  ds_0:\n    url: jdbc:postgresql://127.0.0.1:5432/ds_0";
        for (String accepted : new String[] {"?sslmode=require", "?ApplicationName=x&sslmode=verify-full", "?ssl=true",
                "?sslmode=prefer", "?sslmode=disable", "?ssl=false", "?sslmode=allow&ssl=true", "?channelBinding=require", ""}) {
            // the files a verifying mode needs are read where the proxy runs, when it opens the data source
            assertEquals(1, ProxyConfigurationLoader.loadDatabase("config-x.yaml", plain + accepted + "\n").dataSources().size(), accepted);
        }
        assertEquals("config-x.yaml: dataSources.ds_0.url: invalid sslmode 'verify': expected disable, allow, prefer, require,"
                + " verify-ca or verify-full (line 4, column 10)", errorOf(plain + "?sslmode=verify\n"));
        assertErrorContains("dataSources.ds_0.url: sslfactory is not supported",
                plain + "?ssl=true\n    props:\n      sslfactory: org.postgresql.ssl.NonValidatingFactory\n");
        assertErrorContains("dataSources.ds_0.url: channelBinding=require needs TLS",
                plain + "\n    props:\n      sslmode: disable\n      channelBinding: require\n");
        assertErrorContains("protocolVersion=3 is not supported for an openGauss data source",
                "databaseName: db\ndataSources:\n  ds_0:\n    url: jdbc:opengauss://127.0.0.1:5432/ds_0?protocolVersion=3\n");
    }

    @Test
    void quotedNumbersAreNumbersToo() {
        LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-x.yaml", HEAD + "    maxPoolSize: \"12\"\n");
        assertEquals(12, database.dataSources().get("ds_0").maxPoolSize());
    }

    @Test
    void strategyNamingAnUndefinedAlgorithm() {
        assertErrorContains("rules[0].!SHARDING.tables.t_order.tableStrategy.standard.shardingAlgorithmName: sharding algorithm 'mod_4' "
                + "is not defined in shardingAlgorithms (defined: mod) (line 12, column 34)", HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      tableStrategy:
                        standard:
                          shardingColumn: order_id
                          shardingAlgorithmName: mod_4
                  shardingAlgorithms:
                    mod:
                      type: MOD
                """);
    }

    @Test
    void keyGenerateStrategyNamingAnUndefinedGenerator() {
        assertErrorContains("key generator 'snowflake' is not defined in keyGenerators (none is)", HEAD + """
                rules:
                - !SHARDING
                  defaultKeyGenerateStrategy:
                    column: id
                    keyGeneratorName: snowflake
                """);
    }

    @Test
    void literalDataSourceThatIsNotDefined() {
        assertErrorContains("rules[0].!SHARDING.tables.t_order.actualDataNodes: data source 'ds_9' is not defined in dataSources "
                + "(defined: ds_0)", HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order_${0..1}, ds_9.t_order_2
                """);
        assertErrorContains("rules[0].!SHARDING.autoTables.t_auto.actualDataSources: data source 'ds_1' is not defined", HEAD + """
                rules:
                - !SHARDING
                  autoTables:
                    t_auto:
                      actualDataSources: ds_0,ds_1
                """);
        assertErrorContains("expected <data source>.<table> data nodes, got 't_order'", HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      actualDataNodes: t_order
                """);
    }

    @Test
    void inlineDataSourceNamesAreLeftToTheCompiler() {
        LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-x.yaml", HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      actualDataNodes: ds_${0..9}.t_order_${[0, 1]}, ds_0.t_extra
                """);
        ShardingRuleConfig sharding = (ShardingRuleConfig) database.rules().get(0);
        assertEquals(Optional.of("ds_${0..9}.t_order_${[0, 1]}, ds_0.t_extra"), sharding.tables().get("t_order").actualDataNodes());
    }

    @Test
    void invalidYamlNamesLineAndColumn() {
        String message = errorOf("databaseName: db\ndataSources:\n  ds_0: {url: x\n");
        assertTrue(message.startsWith("config-x.yaml: invalid YAML at line 4, column 1: "), message);
        String tabs = errorOf("databaseName: db\n\tdataSources:\n");
        assertTrue(tabs.startsWith("config-x.yaml: invalid YAML at line 2, column 1: "), tabs);
    }

    @Test
    void unsupportedShardingSphereRulesAreRefusedByName() {
        for (String tag : new String[] {"!ENCRYPT", "!READWRITE_SPLITTING", "!SHADOW", "!MASK", "!DB_DISCOVERY", "!DATABASE_DISCOVERY"}) {
            assertErrorContains("rules[0]: rule " + tag + " is not supported by Ashlar (file config-x.yaml)", HEAD + "rules:\n- " + tag + "\n  tables: {}\n");
        }
    }

    @Test
    void unknownAndMisplacedRules() {
        assertErrorContains("rules[0]: unknown rule !SHARDIN (expected one of: !SHARDING, !BROADCAST, !SINGLE)", HEAD + "rules:\n- !SHARDIN\n  tables: {}\n");
        assertErrorContains("rules[0]: expected a tagged rule (!SHARDING, !BROADCAST, !SINGLE), got a mapping", HEAD + "rules:\n- tables: {}\n");
        assertErrorContains("rule !AUTHORITY is a global rule: it belongs in server.yaml", HEAD + "rules:\n- !AUTHORITY\n  users: []\n");
        assertErrorContains("rules[1]: a second !SHARDING rule in the same file", HEAD + "rules:\n- !SHARDING\n  tables: {}\n- !SHARDING\n  tables: {}\n");
    }

    @Test
    void missingDatabaseName() {
        assertEquals("config-x.yaml: missing 'databaseName' (or 'schemaName' in ShardingSphere 5.1 files): the name clients connect to "
                + "(line 1, column 1)", errorOf("dataSources:\n  ds_0:\n    url: jdbc:postgresql://h/d\n"));
        assertErrorContains("databaseName 'a' and schemaName 'b' differ", "databaseName: a\nschemaName: b\n");
        assertEquals("same", ProxyConfigurationLoader.loadDatabase("config-x.yaml", "databaseName: same\nschemaName: same\n").name());
    }

    @Test
    void unknownTopLevelKey() {
        assertErrorContains("unknown key 'dataSource' (expected one of: databaseName, schemaName, dataSources, rules) (line 2, column 1)",
                "databaseName: db\ndataSource:\n  ds_0: {}\n");
    }

    @Test
    void strategyWithTwoKinds() {
        assertErrorContains("rules[0].!SHARDING.defaultTableStrategy: expected exactly one of: standard, complex, hint, none, got standard, none",
                HEAD + """
                rules:
                - !SHARDING
                  defaultTableStrategy:
                    standard:
                      shardingColumn: id
                      shardingAlgorithmName: mod
                    none:
                  shardingAlgorithms:
                    mod:
                      type: MOD
                """);
    }

    @Test
    void standardStrategyWithoutColumnNeedsADefaultShardingColumn() {
        assertErrorContains("rules[0].!SHARDING.tables.t_order.tableStrategy.standard: missing 'shardingColumn' (and no defaultShardingColumn is set)",
                HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      tableStrategy:
                        standard:
                          shardingAlgorithmName: mod
                  shardingAlgorithms:
                    mod:
                      type: MOD
                """);
    }

    @Test
    void bindingAndBroadcastTablesAreChecked() {
        assertErrorContains("binding table 't_item' is not a sharding table (not in tables or autoTables)", HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order
                  bindingTables:
                    - t_order, t_item
                """);
        assertErrorContains("rules[1].!BROADCAST: table 'T_ORDER' is both a sharding table (!SHARDING) and a broadcast table (!BROADCAST)", HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order
                - !BROADCAST
                  tables: [T_ORDER]
                """);
        assertErrorContains("logic table 'T_ORDER' is configured twice (also in tables)", HEAD + """
                rules:
                - !SHARDING
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order
                  autoTables:
                    T_ORDER:
                      actualDataSources: ds_0
                """);
    }

    @Test
    void dataSourceChecks() {
        assertErrorContains("dataSources.ds_0.url: expected a jdbc:postgresql: or jdbc:opengauss: URL, got 'jdbc:mysql://h/db'",
                "databaseName: db\ndataSources:\n  ds_0:\n    url: jdbc:mysql://h/db\n");
        assertErrorContains("dataSources.ds_0: both 'url' and 'jdbcUrl' are given; keep one",
                HEAD + "    jdbcUrl: jdbc:postgresql://127.0.0.1:5432/ds_0\n");
        assertErrorContains("dataSources.ds_0.minPoolSize: expected at most maxPoolSize (5), got 6", HEAD + "    maxPoolSize: 5\n    minPoolSize: 6\n");
        assertErrorContains("dataSources.ds_0: missing 'url'", "databaseName: db\ndataSources:\n  ds_0:\n    username: u\n");
        assertErrorContains("dataSources.ds_0: unknown key 'maxPoolsize' (did you mean 'maxPoolSize'?)", HEAD + "    maxPoolsize: 5\n");
    }

    @Test
    void singleRuleChecksItsDataSources() {
        assertErrorContains("rules[0].!SINGLE.defaultDataSource: data source 'ds_7' is not defined in dataSources",
                HEAD + "rules:\n- !SINGLE\n  tables: [\"*.*\"]\n  defaultDataSource: ds_7\n");
        assertErrorContains("rules[0].!SINGLE.tables[0]: data source 'ds_3' is not defined in dataSources",
                HEAD + "rules:\n- !SINGLE\n  tables: [ds_3.*]\n");
    }

    @Test
    void duplicateKeysAreRefused() {
        assertErrorContains("dataSources: duplicate key 'ds_0' at line 6 (first at line 3)", HEAD + "    maxPoolSize: 2\n  ds_0:\n    url: x\n");
    }

    @Test
    void emptyTextIsNoLogicalDatabase() {
        assertEquals("config-x.yaml: holds no logical database (the YAML is empty)", errorOf("# only a comment\n"));
    }

    @Test
    void recursiveAliasIsRefusedNotOverflowed() {
        assertEquals("config-x.yaml: rules[0]: an alias refers to a node that contains it (recursive YAML) (line 2)",
                errorOf("databaseName: db\nrules: &loop\n  - *loop\n"));
    }
}
