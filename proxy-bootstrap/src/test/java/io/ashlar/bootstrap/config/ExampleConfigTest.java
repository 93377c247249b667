package io.ashlar.bootstrap.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.route.config.BroadcastRuleConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The configuration shipped to users (conf/) and the demo's templates load, and the demo's rows obey its rule. */
class ExampleConfigTest {

    private static final Pattern ROW = Pattern.compile("\\((\\d+), (\\d+)(?:, (\\d+))?, '");

    private static final Pattern INSERT = Pattern.compile("INSERT INTO (t_order|t_order_item)_(\\d) .*");

    /** SCRAM-SHA-256 for every user of the shipped server.yaml is one "#" away, as its comment says. */
    @Test
    void scramForEveryUserIsOneLineAway() throws java.io.IOException {
        String shipped = Files.readString(projectRoot().resolve("conf/server.yaml"));
        String scram = shipped.replace("\n#  defaultAuthenticator: scram_sha256\n", "\n  defaultAuthenticator: scram_sha256\n");
        assertFalse(scram.equals(shipped), "conf/server.yaml no longer has the commented-out defaultAuthenticator line");
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.SCRAM_SHA_256, false, true),
                new ProxyUser("sharding", "%", "sharding", ProxyUser.SCRAM_SHA_256)),
                ProxyConfigurationLoader.loadServer("server.yaml", scram).users());
        String oneUser = shipped.replace("\n#      authenticationMethodName: scram_sha256\n", "\n      authenticationMethodName: scram_sha256\n");
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT, false, true),
                new ProxyUser("sharding", "%", "sharding", ProxyUser.SCRAM_SHA_256)),
                ProxyConfigurationLoader.loadServer("server.yaml", oneUser).users());
    }

    @Test
    void loadsTheExampleConfDirectory() {
        ProxyConfiguration config = ProxyConfigurationLoader.load(projectRoot().resolve("conf"));
        assertEquals(ModeConfig.STANDALONE, config.server().mode());
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT, false, true),
                new ProxyUser("sharding", "%", "sharding", ProxyUser.PROTOCOL_DEFAULT)), config.server().users());
        assertEquals(ServerProps.DEFAULTS, new ServerProps(5433, "127.0.0.1", 0, false, false, -1, 1, Optional.empty(), 128, 0, 1024, 256L << 20,
                FrontendTlsConfig.DISABLED, 60, 0));
        assertEquals(new ServerProps(5433, "127.0.0.1", 0, false, false, -1, 1, Optional.of("PostgreSQL"), 128, 0, 1024, 256L << 20,
                FrontendTlsConfig.DISABLED, 60, 0), config.server().props());
        checkShardingLayout(config.databases().get(0));
        assertEquals("jdbc:postgresql://127.0.0.1:5432/demo_ds_0", config.databases().get(0).dataSources().get("ds_0").url());
    }

    @Test
    void loadsTheDemoTemplatesWithTheirPlaceholdersFilled() {
        ProxyConfiguration config = DemoConfiguration.load("jdbc:postgresql://localhost:40001/postgres",
                "jdbc:postgresql://localhost:40002/postgres", "postgres", "se\"cr\\et");
        assertEquals("127.0.0.1", config.server().props().bindAddress());
        assertEquals("root", config.server().users().get(0).name());
        LogicalDatabaseConfig database = config.databases().get(0);
        checkShardingLayout(database);
        assertEquals("jdbc:postgresql://localhost:40002/postgres", database.dataSources().get("ds_1").url());
        assertEquals("se\"cr\\et", database.dataSources().get("ds_1").password());
    }

    @Test
    void demoPlaceholderWithoutValueIsAnError() {
        assertThrows(ConfigurationException.class, () -> DemoConfiguration.renderDoubleQuoted("url: \"@NOPE@\"", Map.of()));
    }

    @Test
    void demoSchemaCreatesEveryActualTableOnEveryDataSource() {
        for (String dataSource : List.of("ds_0", "ds_1")) {
            List<String> statements = DemoConfiguration.schemaStatements(dataSource);
            for (String table : List.of("t_order_0", "t_order_1", "t_order_item_0", "t_order_item_1", "t_address")) {
                assertTrue(statements.stream().anyMatch(each -> each.startsWith("CREATE TABLE IF NOT EXISTS " + table + " ")), dataSource + " " + table);
            }
            assertFalse(statements.stream().anyMatch(each -> each.endsWith(";")));
        }
    }

    @Test
    void demoRowsLieWhereTheShardingRulePutsThem() {
        int rows = 0;
        for (int dataSource = 0; dataSource < 2; dataSource++) {
            for (String statement : DemoConfiguration.schemaStatements("ds_" + dataSource)) {
                Matcher insert = INSERT.matcher(statement);
                if (!insert.matches()) {
                    continue;
                }
                boolean item = "t_order_item".equals(insert.group(1));
                int tableSuffix = Integer.parseInt(insert.group(2));
                Matcher row = ROW.matcher(statement);
                while (row.find()) {
                    long orderId = Long.parseLong(item ? row.group(2) : row.group(1));
                    long userId = Long.parseLong(item ? row.group(3) : row.group(2));
                    assertEquals(dataSource, userId % 2, statement);
                    assertEquals(tableSuffix, orderId % 2, statement);
                    rows++;
                }
            }
        }
        assertEquals(18, rows);
    }

    @Test
    void schemaSectionsSelectByDataSource() {
        String sql = "-- @dataSource: *\nCREATE TABLE a (x INT);\n-- @dataSource: ds_1\nINSERT INTO a\n  VALUES (1);\n-- @dataSource: ds_0\nINSERT INTO a VALUES (0);\n";
        assertEquals(List.of("CREATE TABLE a (x INT)", "INSERT INTO a\n  VALUES (1)"), DemoConfiguration.schemaStatements(sql, "ds_1"));
        assertEquals(List.of("CREATE TABLE a (x INT)", "INSERT INTO a VALUES (0)"), DemoConfiguration.schemaStatements(sql, "ds_0"));
    }

    private static void checkShardingLayout(LogicalDatabaseConfig database) {
        assertEquals("sharding_db", database.name());
        assertEquals(List.of("ds_0", "ds_1"), List.copyOf(database.dataSources().keySet()));
        ShardingRuleConfig sharding = (ShardingRuleConfig) database.rules().get(0);
        for (String table : List.of("t_order", "t_order_item")) {
            assertEquals(Optional.of("ds_${0..1}." + table + "_${0..1}"), sharding.tables().get(table).actualDataNodes());
            assertEquals(Optional.of(new ShardingStrategyConfig.Standard("user_id", "database_inline")), sharding.tables().get(table).databaseStrategy());
            assertEquals(Optional.of(new ShardingStrategyConfig.Standard("order_id", "t_order_mod")), sharding.tables().get(table).tableStrategy());
        }
        assertEquals("order_id", sharding.tables().get("t_order").keyGenerateStrategy().orElseThrow().column());
        assertEquals("SNOWFLAKE", sharding.keyGenerators().get("snowflake").type());
        assertEquals("ds_${user_id % 2}", sharding.shardingAlgorithms().get("database_inline").props().get("algorithm-expression"));
        assertEquals("2", sharding.shardingAlgorithms().get("t_order_mod").props().get("sharding-count"));
        assertEquals(List.of("t_order", "t_order_item"), sharding.bindingTables().get(0).tables());
        assertEquals(new BroadcastRuleConfig(List.of("t_address")), database.rules().get(1));
    }

    /** The repository root: the first directory upward holding conf/server.yaml (or -Dashlar.root). */
    static Path projectRoot() {
        String configured = System.getProperty("ashlar.root");
        if (configured != null) {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("conf/server.yaml")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no conf/server.yaml above " + Path.of("").toAbsolutePath());
    }
}
