package io.ashlar.route.rule;

import io.ashlar.route.config.AlgorithmConfig;
import io.ashlar.route.config.AutoTableRuleConfig;
import io.ashlar.route.config.BindingTableGroupConfig;
import io.ashlar.route.config.BroadcastRuleConfig;
import io.ashlar.route.config.KeyGenerateStrategyConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import io.ashlar.route.config.SingleRuleConfig;
import io.ashlar.route.config.TableRuleConfig;
import io.ashlar.sharding.AutoTableAlgorithm;
import io.ashlar.sharding.ComplexShardingAlgorithm;
import io.ashlar.sharding.HintShardingAlgorithm;
import io.ashlar.sharding.ShardingAlgorithm;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingAlgorithms;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;
import io.ashlar.sharding.inline.InlineExpression;
import io.ashlar.sharding.keygen.KeyGenerator;
import io.ashlar.sharding.keygen.KeyGenerators;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns rule configuration records into a {@link ShardingRules} snapshot. Runs at start and on configuration
 * changes only, so it is written plainly; every failure is a {@link RuleCompilationException} naming the table,
 * the strategy and the problem.
 */
final class RuleCompiler {

    private final List<String> dataSources;

    private final Map<String, Integer> dataSourceIndex = new HashMap<>();

    private final Map<String, RuleTable> tables = new HashMap<>();

    private final List<ShardingTable> shardingTables = new ArrayList<>();

    private final List<List<String>> bindingGroups = new ArrayList<>();

    /** Per sharded logic table, how its strategies place a row ({@link #topology}), compared within a binding group. */
    private final Map<String, String> topologies = new HashMap<>();

    RuleCompiler(List<String> dataSources) {
        this.dataSources = List.copyOf(dataSources);
        for (int i = 0; i < this.dataSources.size(); i++) {
            if (dataSourceIndex.put(this.dataSources.get(i), i) != null) {
                throw new RuleCompilationException("data source '" + this.dataSources.get(i) + "' is defined twice");
            }
        }
    }

    ShardingRules compile(List<Object> ruleConfigs, Map<String, String> singleTables) {
        int defaultDataSource = dataSources.isEmpty() ? -1 : 0;
        List<SingleRuleConfig> singleRules = new ArrayList<>();
        List<String> broadcast = new ArrayList<>();
        for (Object each : ruleConfigs) {
            switch (each) {
                case ShardingRuleConfig sharding -> {
                    compileSharding(sharding);
                    broadcast.addAll(sharding.broadcastTables());
                }
                case BroadcastRuleConfig rule -> broadcast.addAll(rule.tables());
                case SingleRuleConfig rule -> {
                    singleRules.add(rule);
                    if (rule.defaultDataSource().isPresent()) {
                        defaultDataSource = dataSource(rule.defaultDataSource().get(), "!SINGLE rule defaultDataSource");
                    }
                }
                default -> throw new RuleCompilationException("unsupported rule configuration " + each.getClass().getSimpleName()
                        + "; Ashlar supports !SHARDING, !BROADCAST and !SINGLE rules");
            }
        }
        if (!tables.isEmpty() && dataSources.isEmpty()) {
            throw new RuleCompilationException("sharding rules need at least one data source");
        }
        for (String each : broadcast) {
            String name = normalise(each);
            RuleTable existing = tables.get(name);
            if (existing instanceof ShardingTable) {
                throw new RuleCompilationException("table " + name + " is both sharded and broadcast");
            }
            if (dataSources.isEmpty()) {
                throw new RuleCompilationException("broadcast table " + name + " needs at least one data source");
            }
            tables.put(name, new BroadcastTable(name));
        }
        for (Map.Entry<String, String> each : singleTables.entrySet()) {
            addSingle(each.getKey(), each.getValue(), "single table " + each.getKey());
        }
        for (SingleRuleConfig rule : singleRules) {
            for (String pattern : rule.tables()) {
                addSinglePattern(pattern);
            }
        }
        return new ShardingRules(dataSources, defaultDataSource, tables, shardingTables, bindingGroups, Map.of());
    }

    private void addSingle(String table, String dataSource, String what) {
        String name = normalise(table);
        if (tables.containsKey(name) && !(tables.get(name) instanceof SingleTable)) {
            return;
        }
        int index = dataSource(dataSource, what);
        tables.put(name, new SingleTable(name, dataSources.get(index), index));
    }

    /** {@code ds_0.t_config} (or {@code ds_0.public.t_config}) places a table; wildcards only select what is loaded. */
    private void addSinglePattern(String pattern) {
        String[] parts = pattern.trim().split("\\.");
        if (parts.length < 2 || parts.length > 3) {
            throw new RuleCompilationException("!SINGLE rule table '" + pattern + "' is not of the form data_source.table or data_source.schema.table");
        }
        String dataSource = parts[0];
        String table = parts[parts.length - 1];
        if (!dataSource.equals("*")) {
            dataSource(dataSource, "!SINGLE rule table '" + pattern + "'");
        }
        if (!dataSource.equals("*") && !table.equals("*")) {
            addSingle(table, dataSource, "!SINGLE rule table '" + pattern + "'");
        }
    }

    private void compileSharding(ShardingRuleConfig config) {
        Map<String, ShardingAlgorithm> algorithms = new LinkedHashMap<>();
        for (Map.Entry<String, AlgorithmConfig> each : config.shardingAlgorithms().entrySet()) {
            try {
                algorithms.put(each.getKey(), ShardingAlgorithms.create(each.getValue().type(), each.getValue().props()));
            } catch (ShardingAlgorithmException e) {
                throw new RuleCompilationException("sharding algorithm '" + each.getKey() + "' (" + each.getValue().type() + "): " + e.getMessage(), e);
            }
        }
        Map<String, KeyGenerator> keyGenerators = new LinkedHashMap<>();
        for (Map.Entry<String, AlgorithmConfig> each : config.keyGenerators().entrySet()) {
            try {
                keyGenerators.put(each.getKey(), KeyGenerators.create(each.getValue().type(), each.getValue().props()));
            } catch (ShardingAlgorithmException e) {
                throw new RuleCompilationException("key generator '" + each.getKey() + "' (" + each.getValue().type() + "): " + e.getMessage(), e);
            }
        }
        Context context = new Context(config, algorithms, keyGenerators);
        List<ShardingTable> compiled = new ArrayList<>();
        for (TableRuleConfig each : config.tables().values()) {
            compiled.add(compileTable(each, context));
        }
        for (AutoTableRuleConfig each : config.autoTables().values()) {
            compiled.add(compileAutoTable(each, context));
        }
        Map<String, ShardingTable> byName = new LinkedHashMap<>();
        for (ShardingTable each : compiled) {
            if (byName.put(each.logicTable(), each) != null || tables.containsKey(each.logicTable())) {
                throw new RuleCompilationException("table " + each.logicTable() + " is configured twice");
            }
        }
        for (BindingTableGroupConfig group : config.bindingTables()) {
            bindGroup(group, byName);
        }
        for (ShardingTable each : byName.values()) {
            tables.put(each.logicTable(), each);
            shardingTables.add(each);
        }
    }

    private record Context(ShardingRuleConfig config, Map<String, ShardingAlgorithm> algorithms, Map<String, KeyGenerator> keyGenerators) {
    }

    private ShardingTable compileTable(TableRuleConfig config, Context context) {
        String logicTable = normalise(config.logicTable());
        List<String[]> pairs = new ArrayList<>();
        if (config.actualDataNodes().isPresent() && !config.actualDataNodes().get().isBlank()) {
            String expression = config.actualDataNodes().get();
            List<String> expanded;
            try {
                expanded = InlineExpression.expand(expression);
            } catch (ShardingAlgorithmException e) {
                throw new RuleCompilationException("table " + logicTable + ": actualDataNodes '" + expression + "': " + e.getMessage(), e);
            }
            for (String each : expanded) {
                int dot = each.indexOf('.');
                if (dot <= 0 || dot == each.length() - 1) {
                    throw new RuleCompilationException("table " + logicTable + ": actualDataNodes entry '" + each + "' is not of the form data_source.table");
                }
                String table = each.substring(each.lastIndexOf('.') + 1);
                pairs.add(new String[] {each.substring(0, dot), table});
            }
        } else {
            for (String each : dataSources) {
                pairs.add(new String[] {each, logicTable});
            }
        }
        ShardingStrategyConfig databaseStrategy = config.databaseStrategy().or(() -> context.config().defaultDatabaseStrategy())
                .orElse(ShardingStrategyConfig.None.INSTANCE);
        ShardingStrategyConfig tableStrategy = config.tableStrategy().or(() -> context.config().defaultTableStrategy())
                .orElse(ShardingStrategyConfig.None.INSTANCE);
        Optional<KeyGenerateStrategyConfig> keyStrategy = config.keyGenerateStrategy().or(() -> context.config().defaultKeyGenerateStrategy());
        return build(logicTable, pairs, databaseStrategy, tableStrategy, keyStrategy, context);
    }

    private ShardingTable compileAutoTable(AutoTableRuleConfig config, Context context) {
        String logicTable = normalise(config.logicTable());
        if (config.shardingStrategy().isEmpty() || config.shardingStrategy().get() instanceof ShardingStrategyConfig.None) {
            throw new RuleCompilationException("auto table " + logicTable + ": shardingStrategy is missing; auto tables need a standard strategy with MOD, HASH_MOD, "
                    + "VOLUME_RANGE, BOUNDARY_RANGE or AUTO_INTERVAL");
        }
        ShardingStrategyConfig strategy = config.shardingStrategy().get();
        String algorithmName = strategy.algorithmName().orElse("");
        ShardingAlgorithm algorithm = algorithm(context, algorithmName, "auto table " + logicTable, describe(strategy));
        if (!(algorithm instanceof AutoTableAlgorithm auto)) {
            throw new RuleCompilationException("auto table " + logicTable + ", shardingStrategy " + describe(strategy) + ": algorithm '" + algorithmName + "' is "
                    + algorithm.type() + ", which cannot size auto tables; use MOD, HASH_MOD, VOLUME_RANGE, BOUNDARY_RANGE or AUTO_INTERVAL");
        }
        List<String> sources;
        if (config.actualDataSources().isPresent() && !config.actualDataSources().get().isBlank()) {
            try {
                sources = InlineExpression.expand(config.actualDataSources().get());
            } catch (ShardingAlgorithmException e) {
                throw new RuleCompilationException("auto table " + logicTable + ": actualDataSources '" + config.actualDataSources().get() + "': " + e.getMessage(), e);
            }
        } else {
            sources = dataSources;
        }
        if (sources.isEmpty()) {
            throw new RuleCompilationException("auto table " + logicTable + ": no data source to put its tables on");
        }
        List<String[]> pairs = new ArrayList<>();
        for (int i = 0; i < auto.autoTablesAmount(); i++) {
            pairs.add(new String[] {sources.get(i % sources.size()), logicTable + "_" + i});
        }
        Optional<KeyGenerateStrategyConfig> keyStrategy = config.keyGenerateStrategy().or(() -> context.config().defaultKeyGenerateStrategy());
        return build(logicTable, pairs, ShardingStrategyConfig.None.INSTANCE, strategy, keyStrategy, context);
    }

    private ShardingTable build(String logicTable, List<String[]> pairs, ShardingStrategyConfig databaseStrategy, ShardingStrategyConfig tableStrategy,
                                Optional<KeyGenerateStrategyConfig> keyStrategy, Context context) {
        if (pairs.isEmpty()) {
            throw new RuleCompilationException("table " + logicTable + ": actualDataNodes expand to no data node");
        }
        List<List<String>> tablesByDataSource = new ArrayList<>();
        for (int i = 0; i < dataSources.size(); i++) {
            tablesByDataSource.add(new ArrayList<>());
        }
        Set<String> seen = new HashSet<>();
        List<String> allTables = new ArrayList<>();
        for (String[] each : pairs) {
            int index = dataSource(each[0], "table " + logicTable + ": data node " + each[0] + "." + each[1]);
            if (!seen.add(dataSources.get(index) + "." + each[1])) {
                throw new RuleCompilationException("table " + logicTable + ": data node " + each[0] + "." + each[1] + " is listed twice");
            }
            tablesByDataSource.get(index).add(each[1]);
            allTables.add(each[1]);
        }
        List<String> tableDataSources = new ArrayList<>();
        List<Integer> tableDataSourceIndexes = new ArrayList<>();
        List<DataNode> nodes = new ArrayList<>();
        List<Integer> nodeDataSources = new ArrayList<>();
        List<int[]> nodeOf = new ArrayList<>();
        for (int i = 0; i < dataSources.size(); i++) {
            List<String> onDataSource = tablesByDataSource.get(i);
            if (onDataSource.isEmpty()) {
                continue;
            }
            tableDataSources.add(dataSources.get(i));
            tableDataSourceIndexes.add(i);
            int[] indexes = new int[onDataSource.size()];
            for (int j = 0; j < indexes.length; j++) {
                indexes[j] = nodes.size();
                nodes.add(new DataNode(dataSources.get(i), onDataSource.get(j)));
                nodeDataSources.add(i);
            }
            nodeOf.add(indexes);
        }
        List<String> columns = new ArrayList<>();
        addColumns(databaseStrategy, columns);
        addColumns(tableStrategy, columns);
        List<String> bindingKey = new ArrayList<>();
        addColumns(tableStrategy, bindingKey);
        if (bindingKey.isEmpty()) {
            addColumns(databaseStrategy, bindingKey);
        }
        String where = "table " + logicTable + ", databaseStrategy " + describe(databaseStrategy);
        CompiledStrategy database = strategy(databaseStrategy, ShardingTargets.of(tableDataSources), "", columns, context, where);
        CompiledStrategy[] tableStrategies = new CompiledStrategy[tableDataSources.size()];
        for (int i = 0; i < tableStrategies.length; i++) {
            ShardingTargets targets = ShardingTargets.of(tablesByDataSource.get(tableDataSourceIndexes.get(i)), logicTable, allTables);
            tableStrategies[i] = strategy(tableStrategy, targets, logicTable, columns, context, "table " + logicTable + ", tableStrategy " + describe(tableStrategy));
        }
        String keyColumn = null;
        KeyGenerator keyGenerator = null;
        if (keyStrategy.isPresent()) {
            keyColumn = keyStrategy.get().column().toLowerCase(Locale.ROOT);
            keyGenerator = context.keyGenerators().get(keyStrategy.get().keyGeneratorName());
            if (keyGenerator == null) {
                throw new RuleCompilationException("table " + logicTable + ", keyGenerateStrategy: key generator '" + keyStrategy.get().keyGeneratorName()
                        + "' is not defined in keyGenerators " + context.keyGenerators().keySet());
            }
        }
        int[] nodeDataSource = new int[nodes.size()];
        for (int i = 0; i < nodeDataSource.length; i++) {
            nodeDataSource[i] = nodeDataSources.get(i);
        }
        String description = "databaseStrategy " + describe(databaseStrategy) + ", tableStrategy " + describe(tableStrategy);
        String topology = "databaseStrategy " + topology(databaseStrategy, suffixless(nodes.get(0).dataSource()), context)
                + ", tableStrategy " + topology(tableStrategy, suffixless(nodes.get(0).table()), context);
        topologies.put(logicTable, topology);
        List<String> databaseColumns = new ArrayList<>();
        addStrategyColumns(databaseStrategy, databaseColumns);
        List<String> tableColumns = new ArrayList<>();
        addStrategyColumns(tableStrategy, tableColumns);
        return new ShardingTable(logicTable, nodes, nodeDataSource, columns, bindingKey, database, tableStrategies, nodeOf.toArray(new int[0][]), -1, keyColumn,
                keyGenerator, description, databaseColumns, tableColumns, topology);
    }

    /** A strategy's sharding columns in its order, lower case, repeats kept. */
    private static void addStrategyColumns(ShardingStrategyConfig strategy, List<String> columns) {
        switch (strategy) {
            case ShardingStrategyConfig.Standard standard -> columns.add(normalise(standard.shardingColumn()));
            case ShardingStrategyConfig.Complex complex -> {
                for (String each : complex.shardingColumns()) {
                    columns.add(normalise(each));
                }
            }
            default -> {
                // hint and none strategies read no column
            }
        }
    }

    private static void addColumns(ShardingStrategyConfig strategy, List<String> columns) {
        switch (strategy) {
            case ShardingStrategyConfig.Standard standard -> addColumn(standard.shardingColumn(), columns);
            case ShardingStrategyConfig.Complex complex -> {
                for (String each : complex.shardingColumns()) {
                    addColumn(each, columns);
                }
            }
            default -> {
                // hint and none strategies read no column
            }
        }
    }

    private static void addColumn(String column, List<String> columns) {
        String name = column.trim().toLowerCase(Locale.ROOT);
        if (!columns.contains(name)) {
            columns.add(name);
        }
    }

    private CompiledStrategy strategy(ShardingStrategyConfig config, ShardingTargets targets, String logicTable, List<String> columns, Context context,
                                      String where) {
        try {
            return switch (config) {
                case ShardingStrategyConfig.None none -> new CompiledStrategy.None(targets);
                case ShardingStrategyConfig.Standard standard -> {
                    ShardingAlgorithm algorithm = algorithm(context, standard.shardingAlgorithmName(), where, "");
                    if (!(algorithm instanceof StandardShardingAlgorithm typed)) {
                        throw mismatch(where, standard.shardingAlgorithmName(), algorithm, "standard");
                    }
                    String column = standard.shardingColumn().trim().toLowerCase(Locale.ROOT);
                    yield new CompiledStrategy.Standard(columns.indexOf(column), typed.bind(column, targets));
                }
                case ShardingStrategyConfig.Complex complex -> {
                    ShardingAlgorithm algorithm = algorithm(context, complex.shardingAlgorithmName(), where, "");
                    if (!(algorithm instanceof ComplexShardingAlgorithm typed)) {
                        throw mismatch(where, complex.shardingAlgorithmName(), algorithm, "complex");
                    }
                    List<String> names = new ArrayList<>();
                    int[] ids = new int[complex.shardingColumns().size()];
                    for (int i = 0; i < ids.length; i++) {
                        String column = complex.shardingColumns().get(i).trim().toLowerCase(Locale.ROOT);
                        names.add(column);
                        ids[i] = columns.indexOf(column);
                    }
                    yield new CompiledStrategy.Complex(ids, List.copyOf(names), typed.bind(List.copyOf(names), targets));
                }
                case ShardingStrategyConfig.Hint hint -> {
                    ShardingAlgorithm algorithm = algorithm(context, hint.shardingAlgorithmName(), where, "");
                    if (!(algorithm instanceof HintShardingAlgorithm typed)) {
                        throw mismatch(where, hint.shardingAlgorithmName(), algorithm, "hint");
                    }
                    yield new CompiledStrategy.Hint(typed.bind(targets));
                }
            };
        } catch (ShardingAlgorithmException e) {
            throw new RuleCompilationException(where + ": " + e.getMessage(), e);
        }
    }

    private static RuleCompilationException mismatch(String where, String name, ShardingAlgorithm algorithm, String strategy) {
        String kind = algorithm instanceof StandardShardingAlgorithm ? "standard" : algorithm instanceof ComplexShardingAlgorithm ? "complex" : "hint";
        return new RuleCompilationException(where + ": algorithm '" + name + "' is " + algorithm.type() + ", a " + kind + " algorithm, which a " + strategy
                + " strategy cannot use");
    }

    private static ShardingAlgorithm algorithm(Context context, String name, String where, String strategy) {
        ShardingAlgorithm result = context.algorithms().get(name);
        if (result == null) {
            throw new RuleCompilationException(where + (strategy.isEmpty() ? "" : ", strategy " + strategy) + ": sharding algorithm '" + name
                    + "' is not defined in shardingAlgorithms " + context.algorithms().keySet());
        }
        return result;
    }

    private void bindGroup(BindingTableGroupConfig group, Map<String, ShardingTable> byName) {
        int groupIndex = bindingGroups.size();
        List<String> names = new ArrayList<>();
        ShardingTable first = null;
        for (String each : group.tables()) {
            String name = normalise(each);
            ShardingTable table = byName.get(name);
            if (table == null) {
                throw new RuleCompilationException("binding tables " + group.tables() + ": " + name + " is not a sharded table of this rule");
            }
            if (table.bindingGroup() >= 0) {
                throw new RuleCompilationException("binding tables " + group.tables() + ": " + name + " is already in binding group "
                        + bindingGroups.get(table.bindingGroup()));
            }
            if (first == null) {
                first = table;
            } else if (!sameLayout(first, table)) {
                throw new RuleCompilationException("binding tables " + group.tables() + " are not sharded alike: " + first.logicTable() + " has "
                        + layout(first) + " but " + name + " has " + layout(table) + "; binding tables need the same number of actual tables on the same data sources");
            } else if (!sameSuffixes(first, table)) {
                throw new RuleCompilationException("binding tables " + group.tables() + " are not sharded alike: " + first.logicTable() + " has actual tables "
                        + first.dataNodes() + " but " + name + " has " + table.dataNodes() + "; binding tables need actual tables with the same suffixes "
                        + "in the same order on each data source, so that a join pairs t_order_1 with t_order_item_1");
            } else if (!topologies.get(first.logicTable()).equals(topologies.get(name))) {
                throw new RuleCompilationException("binding tables " + group.tables() + " are not sharded alike: " + first.logicTable() + " has "
                        + topologies.get(first.logicTable()) + " but " + name + " has " + topologies.get(name)
                        + "; binding tables need strategies of the same kind whose algorithms place equal sharding values at the same position "
                        + "(the same type and properties, or INLINE expressions that differ only in the table name and the sharding column)");
            }
            names.add(name);
            byName.put(name, table.withBindingGroup(groupIndex));
        }
        bindingGroups.add(List.copyOf(names));
    }

    /**
     * How a strategy places a row, written so that two tables of a binding group compare equal exactly when equal
     * sharding values land at the same position: the strategy kind and the number of its columns; for an inline
     * algorithm its expression without the target name's prefix and without the sharding columns (ShardingSphere's
     * {@code getAlgorithmStructure}: {@code t_order_${order_id % 2}} and {@code t_order_item_${order_id % 2}} are
     * both {@code ${%2}}); for any other algorithm its type and properties. ShardingSphere compares inline
     * expressions only and lets any two other algorithms through; two different algorithms (MOD and HASH_MOD) place
     * equal values at different positions, so a join pairing them node by node would miss rows.
     *
     * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/features/sharding/concept/#binding-table">ShardingSphere binding tables</a>
     */
    private static String topology(ShardingStrategyConfig strategy, String prefix, Context context) {
        return switch (strategy) {
            case ShardingStrategyConfig.None none -> "none";
            case ShardingStrategyConfig.Standard standard -> "standard " + algorithmTopology(standard.shardingAlgorithmName(), prefix,
                    List.of(standard.shardingColumn()), context);
            case ShardingStrategyConfig.Complex complex -> "complex of " + complex.shardingColumns().size() + " columns "
                    + algorithmTopology(complex.shardingAlgorithmName(), prefix, complex.shardingColumns(), context);
            case ShardingStrategyConfig.Hint hint -> "hint " + algorithmTopology(hint.shardingAlgorithmName(), prefix, List.of(), context);
        };
    }

    private static String algorithmTopology(String name, String prefix, List<String> columns, Context context) {
        AlgorithmConfig algorithm = context.config().shardingAlgorithms().get(name);
        if (algorithm == null) {
            return name;
        }
        String type = algorithm.type().trim().toUpperCase(Locale.ROOT);
        String expression = algorithm.props().get("algorithm-expression");
        if (expression == null || !type.endsWith("INLINE")) {
            return type + " " + new TreeMap<>(algorithm.props());
        }
        String result = expression.replace("$->{", "${");
        if (!prefix.isEmpty()) {
            result = result.replaceFirst(Pattern.quote(prefix), "");
        }
        for (String each : columns) {
            result = result.replaceFirst(Pattern.quote(each.trim()), "");
        }
        return type + " " + result.replaceAll("\\s", "");
    }

    /** {@code t_order_} of {@code t_order_12}, {@code ds_} of {@code ds_0}: a data node name without its numeric suffix. */
    private static String suffixless(String name) {
        int end = name.length();
        while (end > 0 && Character.isDigit(name.charAt(end - 1))) {
            end--;
        }
        return name.substring(0, end);
    }

    /** Whether node {@code i} of both tables has the same numeric suffix ({@code t_order_1}, {@code t_order_item_1}). */
    private static boolean sameSuffixes(ShardingTable left, ShardingTable right) {
        for (int i = 0; i < left.nodeCount(); i++) {
            String leftTable = left.node(i).table();
            String rightTable = right.node(i).table();
            if (!leftTable.substring(suffixless(leftTable).length()).equals(rightTable.substring(suffixless(rightTable).length()))) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameLayout(ShardingTable left, ShardingTable right) {
        if (left.nodeCount() != right.nodeCount()) {
            return false;
        }
        for (int i = 0; i < left.nodeCount(); i++) {
            if (left.nodeDataSource(i) != right.nodeDataSource(i)) {
                return false;
            }
        }
        return true;
    }

    private static String layout(ShardingTable table) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (DataNode each : table.dataNodes()) {
            counts.merge(each.dataSource(), 1, Integer::sum);
        }
        StringBuilder result = new StringBuilder();
        for (Map.Entry<String, Integer> each : counts.entrySet()) {
            result.append(result.isEmpty() ? "" : ", ").append(each.getValue()).append(" on ").append(each.getKey());
        }
        return result.toString();
    }

    private int dataSource(String name, String where) {
        Integer result = dataSourceIndex.get(name.trim());
        if (result == null) {
            throw new RuleCompilationException(where + ": data source '" + name.trim() + "' is not defined; the data sources are " + dataSources);
        }
        return result;
    }

    static String describe(ShardingStrategyConfig strategy) {
        return switch (strategy) {
            case ShardingStrategyConfig.None none -> "none";
            case ShardingStrategyConfig.Standard standard -> "standard(" + standard.shardingColumn() + ", " + standard.shardingAlgorithmName() + ")";
            case ShardingStrategyConfig.Complex complex -> "complex(" + String.join(",", complex.shardingColumns()) + ", " + complex.shardingAlgorithmName() + ")";
            case ShardingStrategyConfig.Hint hint -> "hint(" + hint.shardingAlgorithmName() + ")";
        };
    }

    private static String normalise(String table) {
        return table.trim().toLowerCase(Locale.ROOT);
    }
}
