package io.ashlar.bootstrap.config;

import io.ashlar.route.config.AlgorithmConfig;
import io.ashlar.route.config.AutoTableRuleConfig;
import io.ashlar.route.config.BindingTableGroupConfig;
import io.ashlar.route.config.KeyGenerateStrategyConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import io.ashlar.route.config.TableRuleConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@code !SHARDING} rule (ShardingSphere 5.1-5.5 shape) into a {@link ShardingRuleConfig} and checks what can
 * be checked without compiling it: one strategy kind per strategy, every algorithm, key generator and auditor named
 * is defined, binding tables are sharding tables, and literal data source names in {@code actualDataNodes} and
 * {@code actualDataSources} are data sources of the file. Inline expressions are the rule compiler's to check.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
final class ShardingRuleReader {

    private static final Logger LOG = LoggerFactory.getLogger(ShardingRuleReader.class);

    private static final List<String> RULE_KEYS = List.of("tables", "autoTables", "bindingTables", "broadcastTables",
            "defaultDatabaseStrategy", "defaultTableStrategy", "defaultKeyGenerateStrategy", "defaultAuditStrategy",
            "defaultShardingColumn", "shardingAlgorithms", "keyGenerators", "auditors", "scalingName", "scaling", "shardingCache");

    private static final List<String> TABLE_KEYS = List.of("logicTable", "actualDataNodes", "databaseStrategy", "tableStrategy",
            "keyGenerateStrategy", "auditStrategy");

    private static final List<String> AUTO_TABLE_KEYS = List.of("logicTable", "actualDataSources", "shardingStrategy",
            "keyGenerateStrategy", "auditStrategy");

    private static final List<String> STRATEGY_KINDS = List.of("standard", "complex", "hint", "none");

    private final MappingReader rule;

    private final Set<String> dataSourceNames;

    private Map<String, AlgorithmConfig> shardingAlgorithms = Map.of();

    private Map<String, AlgorithmConfig> keyGenerators = Map.of();

    private Map<String, AlgorithmConfig> auditors = Map.of();

    private Optional<String> defaultShardingColumn = Optional.empty();

    private ShardingRuleReader(MappingReader rule, Set<String> dataSourceNames) {
        this.rule = rule;
        this.dataSourceNames = dataSourceNames;
    }

    static ShardingRuleConfig read(MappingReader rule, Set<String> dataSourceNames) {
        return new ShardingRuleReader(rule, dataSourceNames).read();
    }

    private ShardingRuleConfig read() {
        rule.expectKeys(RULE_KEYS);
        shardingAlgorithms = readAlgorithms("shardingAlgorithms");
        keyGenerators = readAlgorithms("keyGenerators");
        auditors = readAlgorithms("auditors");
        defaultShardingColumn = rule.nonBlankText("defaultShardingColumn").map(String::strip);
        Optional<ShardingStrategyConfig> defaultDatabaseStrategy = rule.mapping("defaultDatabaseStrategy").map(this::readStrategy);
        Optional<ShardingStrategyConfig> defaultTableStrategy = rule.mapping("defaultTableStrategy").map(this::readStrategy);
        Optional<KeyGenerateStrategyConfig> defaultKeyGenerateStrategy = rule.mapping("defaultKeyGenerateStrategy").map(this::readKeyGenerateStrategy);
        rule.mapping("defaultAuditStrategy").ifPresent(this::checkAuditStrategy);
        Map<String, TableRuleConfig> tables = readTables();
        Map<String, AutoTableRuleConfig> autoTables = readAutoTables(tables);
        List<BindingTableGroupConfig> bindingTables = readBindingTables(tables, autoTables);
        List<String> broadcastTables = readBroadcastTables(tables, autoTables);
        for (String each : List.of("scalingName", "scaling", "shardingCache", "auditors", "defaultAuditStrategy")) {
            if (rule.has(each)) {
                LOG.info("{}: {}: ignoring '{}' (Ashlar has no use for it)", rule.fileName(), rule.path(), each);
            }
        }
        return new ShardingRuleConfig(tables, autoTables, bindingTables, broadcastTables, defaultDatabaseStrategy,
                defaultTableStrategy, defaultKeyGenerateStrategy, defaultShardingColumn, shardingAlgorithms, keyGenerators);
    }

    private Map<String, AlgorithmConfig> readAlgorithms(String key) {
        Optional<MappingReader> section = rule.mapping(key);
        if (section.isEmpty()) {
            return Map.of();
        }
        Map<String, AlgorithmConfig> result = new LinkedHashMap<>();
        for (ConfigNode.Entry each : section.get().entries()) {
            MappingReader algorithm = MappingReader.of(rule.fileName(), each.value()).expectKeys("type", "props");
            result.put(each.key(), new AlgorithmConfig(algorithm.requiredText("type").strip(), algorithm.props("props")));
        }
        return Collections.unmodifiableMap(result);
    }

    private Map<String, TableRuleConfig> readTables() {
        Optional<MappingReader> section = rule.mapping("tables");
        if (section.isEmpty()) {
            return Map.of();
        }
        Map<String, TableRuleConfig> result = new LinkedHashMap<>();
        Map<String, String> seen = new HashMap<>();
        for (ConfigNode.Entry each : section.get().entries()) {
            MappingReader table = MappingReader.of(rule.fileName(), each.value()).expectKeys(TABLE_KEYS);
            String logicTable = logicTable(table, each, seen, "tables");
            Optional<String> actualDataNodes = table.nonBlankText("actualDataNodes").map(String::strip);
            actualDataNodes.ifPresent(nodes -> checkDataNodes(table, nodes));
            Optional<ShardingStrategyConfig> databaseStrategy = table.mapping("databaseStrategy").map(this::readStrategy);
            Optional<ShardingStrategyConfig> tableStrategy = table.mapping("tableStrategy").map(this::readStrategy);
            Optional<KeyGenerateStrategyConfig> keyGenerateStrategy = table.mapping("keyGenerateStrategy").map(this::readKeyGenerateStrategy);
            table.mapping("auditStrategy").ifPresent(this::checkAuditStrategy);
            result.put(logicTable, new TableRuleConfig(logicTable, actualDataNodes, databaseStrategy, tableStrategy, keyGenerateStrategy));
        }
        return result;
    }

    private Map<String, AutoTableRuleConfig> readAutoTables(Map<String, TableRuleConfig> tables) {
        Optional<MappingReader> section = rule.mapping("autoTables");
        if (section.isEmpty()) {
            return Map.of();
        }
        Map<String, AutoTableRuleConfig> result = new LinkedHashMap<>();
        Map<String, String> seen = new HashMap<>();
        for (String each : tables.keySet()) {
            seen.put(each.toLowerCase(Locale.ROOT), "tables");
        }
        for (ConfigNode.Entry each : section.get().entries()) {
            MappingReader table = MappingReader.of(rule.fileName(), each.value()).expectKeys(AUTO_TABLE_KEYS);
            String logicTable = logicTable(table, each, seen, "autoTables");
            Optional<String> actualDataSources = table.nonBlankText("actualDataSources").map(String::strip);
            actualDataSources.ifPresent(sources -> checkDataSources(table, sources));
            Optional<ShardingStrategyConfig> shardingStrategy = table.mapping("shardingStrategy").map(this::readStrategy);
            Optional<KeyGenerateStrategyConfig> keyGenerateStrategy = table.mapping("keyGenerateStrategy").map(this::readKeyGenerateStrategy);
            table.mapping("auditStrategy").ifPresent(this::checkAuditStrategy);
            result.put(logicTable, new AutoTableRuleConfig(logicTable, actualDataSources, shardingStrategy, keyGenerateStrategy));
        }
        return result;
    }

    private String logicTable(MappingReader table, ConfigNode.Entry entry, Map<String, String> seen, String section) {
        String result = entry.key().strip();
        if (result.isEmpty()) {
            throw ConfigErrors.at(rule.fileName(), rule.path(), entry.line(), entry.column(), "a logic table name must not be blank");
        }
        Optional<String> declared = table.nonBlankText("logicTable").map(String::strip);
        if (declared.isPresent() && !declared.get().equalsIgnoreCase(result)) {
            throw table.error(table.value("logicTable").orElseThrow(), "logicTable '" + declared.get()
                    + "' differs from its key '" + result + "'");
        }
        String previous = seen.putIfAbsent(result.toLowerCase(Locale.ROOT), section);
        if (previous != null) {
            throw ConfigErrors.at(rule.fileName(), table.node().path(), entry.line(), entry.column(),
                    "logic table '" + result + "' is configured twice (also in " + previous + ")");
        }
        return result;
    }

    private ShardingStrategyConfig readStrategy(MappingReader strategy) {
        strategy.expectKeys(STRATEGY_KINDS);
        List<String> kinds = new ArrayList<>(1);
        for (ConfigNode.Entry each : strategy.entries()) {
            kinds.add(each.key());
        }
        if (kinds.size() != 1) {
            throw strategy.error("expected exactly one of: " + String.join(", ", STRATEGY_KINDS)
                    + (kinds.isEmpty() ? ", got none" : ", got " + String.join(", ", kinds)));
        }
        String kind = kinds.get(0);
        MappingReader body = MappingReader.of(rule.fileName(), strategy.raw(kind).orElseThrow());
        return switch (kind) {
            case "standard" -> {
                body.expectKeys("shardingColumn", "shardingAlgorithmName");
                Optional<String> column = body.nonBlankText("shardingColumn").map(String::strip).or(() -> defaultShardingColumn);
                if (column.isEmpty()) {
                    throw body.error("missing 'shardingColumn' (and no defaultShardingColumn is set)");
                }
                yield new ShardingStrategyConfig.Standard(column.get(), shardingAlgorithmName(body));
            }
            case "complex" -> {
                body.expectKeys("shardingColumns", "shardingAlgorithmName");
                List<String> columns = splitNames(body, "shardingColumns");
                if (columns.isEmpty()) {
                    throw body.error("missing 'shardingColumns' (comma-separated column names)");
                }
                yield new ShardingStrategyConfig.Complex(columns, shardingAlgorithmName(body));
            }
            case "hint" -> {
                body.expectKeys("shardingAlgorithmName");
                yield new ShardingStrategyConfig.Hint(shardingAlgorithmName(body));
            }
            default -> {
                body.expectKeys(List.of());
                yield ShardingStrategyConfig.None.INSTANCE;
            }
        };
    }

    private String shardingAlgorithmName(MappingReader strategy) {
        String result = strategy.requiredText("shardingAlgorithmName").strip();
        if (!shardingAlgorithms.containsKey(result)) {
            throw strategy.error(strategy.value("shardingAlgorithmName").orElseThrow(), "sharding algorithm '" + result
                    + "' is not defined in shardingAlgorithms" + defined(shardingAlgorithms));
        }
        return result;
    }

    private KeyGenerateStrategyConfig readKeyGenerateStrategy(MappingReader strategy) {
        strategy.expectKeys("column", "keyGeneratorName");
        String column = strategy.requiredText("column").strip();
        String generator = strategy.requiredText("keyGeneratorName").strip();
        if (!keyGenerators.containsKey(generator)) {
            throw strategy.error(strategy.value("keyGeneratorName").orElseThrow(), "key generator '" + generator
                    + "' is not defined in keyGenerators" + defined(keyGenerators));
        }
        return new KeyGenerateStrategyConfig(column, generator);
    }

    private void checkAuditStrategy(MappingReader strategy) {
        strategy.expectKeys("auditorNames", "allowHintDisable");
        strategy.bool("allowHintDisable", true);
        for (String each : strategy.textList("auditorNames")) {
            if (!auditors.containsKey(each.strip())) {
                throw strategy.error(strategy.value("auditorNames").orElseThrow(), "auditor '" + each.strip()
                        + "' is not defined in auditors" + defined(auditors));
            }
        }
    }

    private List<BindingTableGroupConfig> readBindingTables(Map<String, TableRuleConfig> tables, Map<String, AutoTableRuleConfig> autoTables) {
        List<BindingTableGroupConfig> result = new ArrayList<>();
        for (ConfigNode each : rule.list("bindingTables")) {
            String text = rule.scalarText(each).strip();
            int colon = text.indexOf(':');
            Optional<String> name = colon < 0 ? Optional.empty() : Optional.of(text.substring(0, colon).strip()).filter(value -> !value.isEmpty());
            List<String> groupTables = new ArrayList<>();
            for (String table : splitTopLevel(colon < 0 ? text : text.substring(colon + 1))) {
                if (!isShardingTable(table, tables, autoTables)) {
                    throw rule.error(each, "binding table '" + table + "' is not a sharding table (not in tables or autoTables)");
                }
                groupTables.add(table);
            }
            if (groupTables.isEmpty()) {
                throw rule.error(each, "expected comma-separated logic table names, got " + each.describe());
            }
            result.add(new BindingTableGroupConfig(name, groupTables));
        }
        return result;
    }

    private List<String> readBroadcastTables(Map<String, TableRuleConfig> tables, Map<String, AutoTableRuleConfig> autoTables) {
        List<String> result = new ArrayList<>();
        for (ConfigNode each : rule.list("broadcastTables")) {
            String table = rule.scalarText(each).strip();
            if (table.isEmpty()) {
                throw rule.error(each, "expected a table name, got nothing");
            }
            if (isShardingTable(table, tables, autoTables)) {
                throw rule.error(each, "table '" + table + "' is both a sharding table and a broadcast table");
            }
            result.add(table);
        }
        return result;
    }

    private static boolean isShardingTable(String table, Map<String, TableRuleConfig> tables, Map<String, AutoTableRuleConfig> autoTables) {
        for (String each : tables.keySet()) {
            if (each.equalsIgnoreCase(table)) {
                return true;
            }
        }
        for (String each : autoTables.keySet()) {
            if (each.equalsIgnoreCase(table)) {
                return true;
            }
        }
        return false;
    }

    /** {@code ds_0.t_order, ds_${0..1}.t_item_${0..1}}: literal data source names must be defined. */
    private void checkDataNodes(MappingReader table, String nodes) {
        ConfigNode value = table.value("actualDataNodes").orElseThrow();
        for (String each : splitTopLevel(nodes)) {
            int dot = topLevelIndexOf(each, '.');
            if (dot <= 0 || dot == each.length() - 1) {
                throw table.error(value, "expected <data source>.<table> data nodes, got '" + each + "'");
            }
            checkDataSourceName(table, value, each.substring(0, dot));
        }
    }

    private void checkDataSources(MappingReader table, String sources) {
        ConfigNode value = table.value("actualDataSources").orElseThrow();
        for (String each : splitTopLevel(sources)) {
            checkDataSourceName(table, value, each);
        }
    }

    private void checkDataSourceName(MappingReader table, ConfigNode value, String dataSource) {
        if (dataSource.indexOf('$') >= 0) {
            return;
        }
        if (!dataSourceNames.contains(dataSource)) {
            throw table.error(value, "data source '" + dataSource + "' is not defined in dataSources"
                    + (dataSourceNames.isEmpty() ? " (none is)" : " (defined: " + String.join(", ", dataSourceNames) + ")"));
        }
    }

    private List<String> splitNames(MappingReader section, String key) {
        Optional<ConfigNode> value = section.value(key);
        if (value.isEmpty()) {
            return List.of();
        }
        if (value.get() instanceof ConfigNode.Sequence) {
            List<String> result = new ArrayList<>();
            for (String each : section.textList(key)) {
                if (!each.isBlank()) {
                    result.add(each.strip());
                }
            }
            return result;
        }
        return splitTopLevel(section.scalarText(value.get()));
    }

    /** Splits on commas outside inline expression braces ({@code ${[a, b]}} stays whole); drops blanks. */
    static List<String> splitTopLevel(String text) {
        List<String> result = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth = Math.max(0, depth - 1);
            } else if (c == ',' && depth == 0) {
                addPart(result, text.substring(start, i));
                start = i + 1;
            }
        }
        addPart(result, text.substring(start));
        return result;
    }

    private static void addPart(List<String> result, String part) {
        String trimmed = part.strip();
        if (!trimmed.isEmpty()) {
            result.add(trimmed);
        }
    }

    private static int topLevelIndexOf(String text, char wanted) {
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth = Math.max(0, depth - 1);
            } else if (c == wanted && depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static String defined(Map<String, AlgorithmConfig> algorithms) {
        return algorithms.isEmpty() ? " (none is)" : " (defined: " + String.join(", ", algorithms.keySet()) + ")";
    }
}
