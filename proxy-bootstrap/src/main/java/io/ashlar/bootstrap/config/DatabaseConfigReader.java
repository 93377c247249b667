package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.route.config.BroadcastRuleConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.SingleRuleConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads one config-*.yaml (one logical database): {@code databaseName} (5.2+) or {@code schemaName} (5.1),
 * {@code dataSources} and {@code rules} with {@code !SHARDING}, {@code !BROADCAST} and {@code !SINGLE}. Other
 * ShardingSphere rules are refused by name.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/rules/">ShardingSphere-Proxy rules</a>
 */
final class DatabaseConfigReader {

    private DatabaseConfigReader() {
    }

    /**
     * Reads a logical database.
     *
     * @return the logical database, empty when the file holds nothing (every line a comment, as in
     *         ShardingSphere's own sample conf/)
     */
    static Optional<LogicalDatabaseConfig> read(String fileName, String yamlText) {
        Optional<ConfigNode> root = YamlConfigParser.parse(fileName, yamlText);
        if (root.isEmpty()) {
            return Optional.empty();
        }
        MappingReader database = MappingReader.of(fileName, root.get()).expectKeys("databaseName", "schemaName", "dataSources", "rules");
        String name = databaseName(database);
        Map<String, DataSourceConfig> dataSources = new LinkedHashMap<>();
        database.mapping("dataSources").ifPresent(section -> {
            for (ConfigNode.Entry each : section.entries()) {
                String dataSourceName = each.key().strip();
                if (dataSourceName.isEmpty()) {
                    throw ConfigErrors.at(fileName, section.path(), each.line(), each.column(), "a data source name must not be blank");
                }
                dataSources.put(dataSourceName, DataSourceReader.read(dataSourceName, MappingReader.of(fileName, each.value())));
            }
        });
        List<Object> rules = readRules(database, dataSources.keySet());
        return Optional.of(new LogicalDatabaseConfig(name, dataSources, rules));
    }

    private static String databaseName(MappingReader database) {
        Optional<String> databaseName = database.nonBlankText("databaseName").map(String::strip);
        Optional<String> schemaName = database.nonBlankText("schemaName").map(String::strip);
        if (databaseName.isPresent() && schemaName.isPresent() && !databaseName.get().equals(schemaName.get())) {
            throw database.error("databaseName '" + databaseName.get() + "' and schemaName '" + schemaName.get()
                    + "' differ; keep databaseName (schemaName is its ShardingSphere 5.1 spelling)");
        }
        return databaseName.or(() -> schemaName).orElseThrow(() -> database.error(
                "missing 'databaseName' (or 'schemaName' in ShardingSphere 5.1 files): the name clients connect to"));
    }

    private static List<Object> readRules(MappingReader database, Set<String> dataSourceNames) {
        List<Object> result = new ArrayList<>();
        Set<String> seenTags = new HashSet<>();
        List<String> shardingTables = new ArrayList<>();
        Optional<ConfigNode> broadcastNode = Optional.empty();
        for (ConfigNode each : database.list("rules")) {
            String tag = each.localTag().orElseThrow(() -> database.error(each,
                    "expected a tagged rule (" + String.join(", ", RuleTags.SUPPORTED_DATABASE_RULES) + "), got " + each.describe()));
            if (RuleTags.UNSUPPORTED_DATABASE_RULES.contains(tag)) {
                throw database.error(each, "rule " + tag + " is not supported by Ashlar (file " + database.fileName()
                        + "); Ashlar supports " + String.join(", ", RuleTags.SUPPORTED_DATABASE_RULES));
            }
            if (RuleTags.isGlobal(tag)) {
                throw database.error(each, "rule " + tag + " is a global rule: it belongs in server.yaml, not in a logical database");
            }
            if (!RuleTags.SUPPORTED_DATABASE_RULES.contains(tag)) {
                throw database.error(each, "unknown rule " + tag + " (expected one of: "
                        + String.join(", ", RuleTags.SUPPORTED_DATABASE_RULES) + ")");
            }
            if (!seenTags.add(tag)) {
                throw database.error(each, "a second " + tag + " rule in the same file");
            }
            MappingReader rule = MappingReader.of(database.fileName(), each);
            switch (tag) {
                case RuleTags.SHARDING -> {
                    ShardingRuleConfig sharding = ShardingRuleReader.read(rule, dataSourceNames);
                    shardingTables.addAll(sharding.tables().keySet());
                    shardingTables.addAll(sharding.autoTables().keySet());
                    result.add(sharding);
                }
                case RuleTags.BROADCAST -> {
                    result.add(readBroadcast(rule));
                    broadcastNode = Optional.of(each);
                }
                default -> result.add(readSingle(rule, dataSourceNames));
            }
        }
        for (Object each : result) {
            if (each instanceof BroadcastRuleConfig broadcast) {
                checkNotSharded(MappingReader.of(database.fileName(), broadcastNode.orElseThrow()), broadcast, shardingTables);
            }
        }
        return result;
    }

    private static BroadcastRuleConfig readBroadcast(MappingReader rule) {
        rule.expectKeys("tables");
        List<String> tables = new ArrayList<>();
        for (ConfigNode each : rule.list("tables")) {
            String table = rule.scalarText(each).strip();
            if (table.isEmpty()) {
                throw rule.error(each, "expected a table name, got nothing");
            }
            tables.add(table);
        }
        return new BroadcastRuleConfig(tables);
    }

    private static void checkNotSharded(MappingReader broadcastRule, BroadcastRuleConfig broadcast, List<String> shardingTables) {
        for (String table : broadcast.tables()) {
            for (String each : shardingTables) {
                if (each.equalsIgnoreCase(table)) {
                    throw broadcastRule.error("table '" + table + "' is both a sharding table (!SHARDING) and a broadcast table (!BROADCAST)");
                }
            }
        }
    }

    private static SingleRuleConfig readSingle(MappingReader rule, Set<String> dataSourceNames) {
        rule.expectKeys("tables", "defaultDataSource");
        List<String> tables = new ArrayList<>();
        for (ConfigNode each : rule.list("tables")) {
            String pattern = rule.scalarText(each).strip();
            int dot = pattern.indexOf('.');
            if (dot <= 0 || dot == pattern.length() - 1) {
                throw rule.error(each, "expected <data source>.<table> (either may be *), got " + each.describe());
            }
            String dataSource = pattern.substring(0, dot);
            if (!"*".equals(dataSource) && !dataSourceNames.contains(dataSource)) {
                throw rule.error(each, "data source '" + dataSource + "' is not defined in dataSources");
            }
            tables.add(pattern);
        }
        Optional<String> defaultDataSource = rule.nonBlankText("defaultDataSource").map(String::strip);
        if (defaultDataSource.isPresent() && !dataSourceNames.contains(defaultDataSource.get())) {
            throw rule.error(rule.value("defaultDataSource").orElseThrow(), "data source '" + defaultDataSource.get()
                    + "' is not defined in dataSources");
        }
        return new SingleRuleConfig(tables, defaultDataSource);
    }
}
