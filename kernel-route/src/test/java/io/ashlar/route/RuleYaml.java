package io.ashlar.route;

import io.ashlar.route.config.AlgorithmConfig;
import io.ashlar.route.config.AutoTableRuleConfig;
import io.ashlar.route.config.BindingTableGroupConfig;
import io.ashlar.route.config.BroadcastRuleConfig;
import io.ashlar.route.config.KeyGenerateStrategyConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import io.ashlar.route.config.SingleRuleConfig;
import io.ashlar.route.config.TableRuleConfig;
import io.ashlar.route.rule.ShardingRules;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Test-only reader of a ShardingSphere-style rule file ({@code dataSources:}, {@code rules: - !SHARDING ...}) in a
 * small YAML subset (block maps and lists, plain and quoted scalars, {@code !TAG} list items, comments), building the
 * config records the proxy's real loader would build. kernel-route must not depend on the loader; this keeps the
 * route tests' rules in the shape users write them. A test-only {@code singleTables:} map stands for the tables the
 * proxy finds in the backends' catalogs.
 */
final class RuleYaml {

    private final List<String> lines;

    private int next;

    private RuleYaml(List<String> lines) {
        this.lines = lines;
    }

    static ShardingRules compile(Path file) throws IOException {
        return compile(Files.readString(file, StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    static ShardingRules compile(String yaml) {
        Map<String, Object> root = (Map<String, Object>) parse(yaml);
        List<String> dataSources = new ArrayList<>();
        Object sources = root.getOrDefault("dataSources", Map.of());
        if (sources instanceof Map<?, ?> map) {
            for (Object each : map.keySet()) {
                dataSources.add((String) each);
            }
        } else {
            for (Object each : (List<Object>) sources) {
                dataSources.add((String) each);
            }
        }
        Map<String, String> singles = new LinkedHashMap<>();
        for (Map.Entry<String, Object> each : map(root.get("singleTables")).entrySet()) {
            singles.put(each.getKey(), (String) each.getValue());
        }
        List<Object> configs = new ArrayList<>();
        for (Object each : list(root.get("rules"))) {
            Map<String, Object> rule = map(each);
            String tag = (String) rule.get("!");
            switch (tag) {
                case "SHARDING" -> configs.add(sharding(rule));
                case "BROADCAST" -> configs.add(new BroadcastRuleConfig(strings(rule.get("tables"))));
                case "SINGLE" -> configs.add(new SingleRuleConfig(strings(rule.get("tables")), text(rule, "defaultDataSource")));
                default -> throw new IllegalArgumentException("unknown rule !" + tag);
            }
        }
        return ShardingRules.compile(configs, dataSources, singles);
    }

    private static ShardingRuleConfig sharding(Map<String, Object> rule) {
        Optional<String> defaultColumn = text(rule, "defaultShardingColumn");
        Map<String, TableRuleConfig> tables = new LinkedHashMap<>();
        for (Map.Entry<String, Object> each : map(rule.get("tables")).entrySet()) {
            Map<String, Object> table = map(each.getValue());
            tables.put(each.getKey(), new TableRuleConfig(each.getKey(), text(table, "actualDataNodes"), strategy(table.get("databaseStrategy"), defaultColumn),
                    strategy(table.get("tableStrategy"), defaultColumn), keyStrategy(table.get("keyGenerateStrategy"))));
        }
        Map<String, AutoTableRuleConfig> autoTables = new LinkedHashMap<>();
        for (Map.Entry<String, Object> each : map(rule.get("autoTables")).entrySet()) {
            Map<String, Object> table = map(each.getValue());
            autoTables.put(each.getKey(), new AutoTableRuleConfig(each.getKey(), text(table, "actualDataSources"),
                    strategy(table.get("shardingStrategy"), defaultColumn), keyStrategy(table.get("keyGenerateStrategy"))));
        }
        List<BindingTableGroupConfig> binding = new ArrayList<>();
        for (String each : strings(rule.get("bindingTables"))) {
            int colon = each.indexOf(':');
            Optional<String> name = colon < 0 ? Optional.empty() : Optional.of(each.substring(0, colon).trim());
            List<String> names = new ArrayList<>();
            for (String table : each.substring(colon + 1).split(",")) {
                names.add(table.trim());
            }
            binding.add(new BindingTableGroupConfig(name, names));
        }
        return new ShardingRuleConfig(tables, autoTables, binding, strings(rule.get("broadcastTables")),
                strategy(rule.get("defaultDatabaseStrategy"), defaultColumn), strategy(rule.get("defaultTableStrategy"), defaultColumn),
                keyStrategy(rule.get("defaultKeyGenerateStrategy")), defaultColumn, algorithms(rule.get("shardingAlgorithms")),
                algorithms(rule.get("keyGenerators")));
    }

    private static Optional<ShardingStrategyConfig> strategy(Object value, Optional<String> defaultColumn) {
        if (value == null) {
            return Optional.empty();
        }
        Map<String, Object> strategy = map(value);
        if (strategy.containsKey("none")) {
            return Optional.of(ShardingStrategyConfig.None.INSTANCE);
        }
        if (strategy.containsKey("standard")) {
            Map<String, Object> standard = map(strategy.get("standard"));
            String column = text(standard, "shardingColumn").or(() -> defaultColumn).orElseThrow();
            return Optional.of(new ShardingStrategyConfig.Standard(column, (String) standard.get("shardingAlgorithmName")));
        }
        if (strategy.containsKey("complex")) {
            Map<String, Object> complex = map(strategy.get("complex"));
            List<String> columns = new ArrayList<>();
            for (String each : ((String) complex.get("shardingColumns")).split(",")) {
                columns.add(each.trim());
            }
            return Optional.of(new ShardingStrategyConfig.Complex(columns, (String) complex.get("shardingAlgorithmName")));
        }
        if (strategy.containsKey("hint")) {
            return Optional.of(new ShardingStrategyConfig.Hint((String) map(strategy.get("hint")).get("shardingAlgorithmName")));
        }
        throw new IllegalArgumentException("unknown strategy " + strategy.keySet());
    }

    private static Optional<KeyGenerateStrategyConfig> keyStrategy(Object value) {
        if (value == null) {
            return Optional.empty();
        }
        Map<String, Object> strategy = map(value);
        return Optional.of(new KeyGenerateStrategyConfig((String) strategy.get("column"), (String) strategy.get("keyGeneratorName")));
    }

    private static Map<String, AlgorithmConfig> algorithms(Object value) {
        Map<String, AlgorithmConfig> result = new LinkedHashMap<>();
        for (Map.Entry<String, Object> each : map(value).entrySet()) {
            Map<String, Object> algorithm = map(each.getValue());
            Map<String, String> props = new LinkedHashMap<>();
            for (Map.Entry<String, Object> prop : map(algorithm.get("props")).entrySet()) {
                props.put(prop.getKey(), String.valueOf(prop.getValue()));
            }
            result.put(each.getKey(), new AlgorithmConfig((String) algorithm.get("type"), props));
        }
        return result;
    }

    private static Optional<String> text(Map<String, Object> map, String key) {
        Object value = map.get(key);
        return value instanceof String text && !text.isEmpty() ? Optional.of(text) : Optional.empty();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        return value instanceof List<?> list ? (List<Object>) list : List.of();
    }

    private static List<String> strings(Object value) {
        List<String> result = new ArrayList<>();
        for (Object each : list(value)) {
            result.add((String) each);
        }
        return result;
    }

    /** Parses the YAML subset into maps (insertion ordered), lists and strings. */
    static Object parse(String yaml) {
        List<String> lines = new ArrayList<>();
        for (String each : yaml.split("\n", -1)) {
            String line = stripComment(each);
            if (!line.isBlank()) {
                lines.add(line);
            }
        }
        RuleYaml reader = new RuleYaml(lines);
        return reader.lines.isEmpty() ? Map.of() : reader.block(indent(reader.lines.get(0)));
    }

    private Object block(int indent) {
        if (lines.get(next).trim().startsWith("- ") || lines.get(next).trim().equals("-")) {
            return sequence(indent);
        }
        return mapping(indent);
    }

    private List<Object> sequence(int indent) {
        List<Object> result = new ArrayList<>();
        while (next < lines.size() && indent(lines.get(next)) == indent && lines.get(next).trim().startsWith("-")) {
            String item = lines.get(next).trim().substring(1).trim();
            if (item.startsWith("!")) {
                next++;
                Map<String, Object> tagged = new LinkedHashMap<>();
                tagged.put("!", item.substring(1).trim());
                if (next < lines.size() && indent(lines.get(next)) > indent) {
                    tagged.putAll(mapping(indent(lines.get(next))));
                }
                result.add(tagged);
            } else if (item.contains(": ") || item.endsWith(":")) {
                lines.set(next, " ".repeat(indent + 2) + item);
                result.add(mapping(indent + 2));
            } else {
                result.add(scalar(item));
                next++;
            }
        }
        return result;
    }

    private Map<String, Object> mapping(int indent) {
        Map<String, Object> result = new LinkedHashMap<>();
        while (next < lines.size() && indent(lines.get(next)) == indent && !lines.get(next).trim().startsWith("- ")) {
            String line = lines.get(next).trim();
            int colon = keyEnd(line);
            String key = scalar(line.substring(0, colon).trim());
            String rest = line.substring(colon + 1).trim();
            next++;
            if (!rest.isEmpty()) {
                result.put(key, rest.startsWith("[") ? flowList(rest) : scalar(rest));
            } else if (next < lines.size() && (indent(lines.get(next)) > indent
                    || indent(lines.get(next)) == indent && lines.get(next).trim().startsWith("- "))) {
                result.put(key, block(indent(lines.get(next))));
            } else {
                result.put(key, "");
            }
        }
        return result;
    }

    private static int keyEnd(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == ':' && (i + 1 == line.length() || line.charAt(i + 1) == ' ')) {
                return i;
            }
        }
        throw new IllegalArgumentException("not a key: " + line);
    }

    private static List<Object> flowList(String text) {
        List<Object> result = new ArrayList<>();
        for (String each : text.substring(1, text.lastIndexOf(']')).split(",")) {
            if (!each.isBlank()) {
                result.add(scalar(each.trim()));
            }
        }
        return result;
    }

    private static String scalar(String text) {
        if (text.length() >= 2 && (text.startsWith("'") && text.endsWith("'") || text.startsWith("\"") && text.endsWith("\""))) {
            return text.substring(1, text.length() - 1);
        }
        return text;
    }

    private static int indent(String line) {
        int result = 0;
        while (result < line.length() && line.charAt(result) == ' ') {
            result++;
        }
        return result;
    }

    private static String stripComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '#' && (i == 0 || line.charAt(i - 1) == ' ')) {
                return line.substring(0, i);
            }
        }
        return line;
    }
}
