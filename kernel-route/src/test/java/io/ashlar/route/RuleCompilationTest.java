package io.ashlar.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.RuleCompilationException;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import io.ashlar.route.rule.SingleTable;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Compiling rules: what the snapshot holds, and the errors that name the table, the strategy and the problem. */
class RuleCompilationTest {

    private static final String HEADER = """
            dataSources:
              ds_0: {}
              ds_1: {}
            rules:
            - !SHARDING
            """;

    private static final String ALGORITHMS = """
              shardingAlgorithms:
                mod_2:
                  type: MOD
                  props:
                    sharding-count: 2
                order_inline:
                  type: INLINE
                  props:
                    algorithm-expression: t_order_${order_id % 2}
                complex:
                  type: COMPLEX_INLINE
                  props:
                    algorithm-expression: t_${a % 2}
            """;

    private static RuleCompilationException failure(String rules) {
        return assertThrows(RuleCompilationException.class, () -> RuleYaml.compile(HEADER + rules + ALGORITHMS));
    }

    private static void assertMentions(RuleCompilationException e, String... parts) {
        for (String each : parts) {
            assertTrue(e.getMessage().contains(each), () -> "'" + each + "' missing from: " + e.getMessage());
        }
    }

    @Test
    void unknownAlgorithmTypeNamesTheAlgorithm() {
        RuleCompilationException e = assertThrows(RuleCompilationException.class, () -> RuleYaml.compile(HEADER + """
                  shardingAlgorithms:
                    my_algorithm:
                      type: FANCY
                """));
        assertMentions(e, "my_algorithm", "FANCY", "supported types");
    }

    @Test
    void badInlineExpressionNamesTableAndPosition() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_${0..1}.t_order_${0..1
                """);
        assertMentions(e, "table t_order", "actualDataNodes", "position");
    }

    @Test
    void undefinedDataSource() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_${0..2}.t_order
                """);
        assertMentions(e, "table t_order", "data source 'ds_2' is not defined");
    }

    @Test
    void undefinedAlgorithmNamesTheStrategy() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order_${0..1}
                      tableStrategy:
                        standard:
                          shardingColumn: order_id
                          shardingAlgorithmName: missing
                """);
        assertMentions(e, "table t_order", "tableStrategy standard(order_id, missing)", "'missing' is not defined");
    }

    @Test
    void standardStrategyCannotUseComplexAlgorithm() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order_${0..1}
                      tableStrategy:
                        standard:
                          shardingColumn: a
                          shardingAlgorithmName: complex
                """);
        assertMentions(e, "table t_order", "COMPLEX_INLINE", "standard strategy cannot use");
    }

    @Test
    void inlineExpressionOnAnotherColumnThanTheStrategy() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order_${0..1}
                      tableStrategy:
                        standard:
                          shardingColumn: user_id
                          shardingAlgorithmName: order_inline
                """);
        assertMentions(e, "table t_order, tableStrategy standard(user_id, order_inline)", "order_id", "user_id");
    }

    @Test
    void bindingTablesMustBeShardedAlike() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_${0..1}.t_order_${0..1}
                    t_order_item:
                      actualDataNodes: ds_0.t_order_item_${0..1}
                  bindingTables:
                    - t_order,t_order_item
                """);
        assertMentions(e, "t_order", "t_order_item", "not sharded alike", "2 on ds_0, 2 on ds_1", "2 on ds_0");
    }

    @Test
    void bindingTablesMustListTheirActualTablesInTheSameOrder() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order_0, ds_0.t_order_1
                    t_order_item:
                      actualDataNodes: ds_0.t_order_item_1, ds_0.t_order_item_0
                  bindingTables:
                    - t_order,t_order_item
                """);
        assertMentions(e, "not sharded alike", "ds_0.t_order_item_1", "same suffixes in the same order");
    }

    @Test
    void bindingTablesMustUseAlgorithmsThatPlaceEqualValuesAlike() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order_${0..1}
                      tableStrategy:
                        standard:
                          shardingColumn: order_id
                          shardingAlgorithmName: order_inline
                    t_order_item:
                      actualDataNodes: ds_0.t_order_item_${0..1}
                      tableStrategy:
                        standard:
                          shardingColumn: order_id
                          shardingAlgorithmName: mod_2
                  bindingTables:
                    - t_order,t_order_item
                """);
        assertMentions(e, "not sharded alike", "INLINE ${%2}", "MOD {sharding-count=2}");
    }

    @Test
    void bindingTablesMustUseStrategiesOfOneKind() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_${0..1}.t_order
                      databaseStrategy:
                        standard:
                          shardingColumn: user_id
                          shardingAlgorithmName: mod_2
                    t_order_item:
                      actualDataNodes: ds_${0..1}.t_order_item
                      databaseStrategy:
                        none:
                  bindingTables:
                    - t_order,t_order_item
                """);
        assertMentions(e, "not sharded alike", "databaseStrategy standard MOD", "databaseStrategy none");
    }

    @Test
    void bindingTablesWithInlineExpressionsDifferingInTableNameAndColumnCompile() {
        ShardingRules rules = RuleYaml.compile(HEADER + """
                  tables:
                    t_order:
                      actualDataNodes: ds_${0..1}.t_order_${0..1}
                      databaseStrategy:
                        standard:
                          shardingColumn: user_id
                          shardingAlgorithmName: order_ds
                      tableStrategy:
                        standard:
                          shardingColumn: order_id
                          shardingAlgorithmName: order_inline
                    t_order_item:
                      actualDataNodes: ds_${0..1}.t_order_item_${0..1}
                      databaseStrategy:
                        standard:
                          shardingColumn: item_user_id
                          shardingAlgorithmName: item_ds
                      tableStrategy:
                        standard:
                          shardingColumn: order_id
                          shardingAlgorithmName: item_inline
                  bindingTables:
                    - t_order,t_order_item
                  shardingAlgorithms:
                    order_ds:
                      type: INLINE
                      props:
                        algorithm-expression: ds_${user_id % 2}
                    item_ds:
                      type: INLINE
                      props:
                        algorithm-expression: ds_$->{item_user_id % 2}
                    order_inline:
                      type: INLINE
                      props:
                        algorithm-expression: t_order_${order_id % 2}
                    item_inline:
                      type: INLINE
                      props:
                        algorithm-expression: t_order_item_${ order_id % 2 }
                """);
        ShardingTable item = (ShardingTable) rules.find("t_order_item").orElseThrow();
        assertEquals(0, item.bindingGroup());
        assertEquals(List.of("item_user_id", "order_id"), item.shardingColumns());
        assertEquals(List.of("order_id"), item.bindingKey());
    }

    @Test
    void bindingKeyIsTheDatabaseColumnWhenNoTableStrategyReadsOne() {
        ShardingRules rules = RuleYaml.compile(HEADER + """
                  tables:
                    t_order:
                      actualDataNodes: ds_${0..1}.t_order
                      databaseStrategy:
                        standard:
                          shardingColumn: user_id
                          shardingAlgorithmName: mod_2
                """ + ALGORITHMS);
        assertEquals(List.of("user_id"), ((ShardingTable) rules.find("t_order").orElseThrow()).bindingKey());
    }

    @Test
    void bindingTableMustBeSharded() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order
                  bindingTables:
                    - t_order,t_unknown
                """);
        assertMentions(e, "t_unknown", "is not a sharded table");
    }

    @Test
    void autoTableNeedsAnAutoAlgorithm() {
        RuleCompilationException e = failure("""
                  autoTables:
                    t_order:
                      shardingStrategy:
                        standard:
                          shardingColumn: order_id
                          shardingAlgorithmName: order_inline
                """);
        assertMentions(e, "auto table t_order", "INLINE", "cannot size auto tables");
    }

    @Test
    void undefinedKeyGenerator() {
        RuleCompilationException e = failure("""
                  tables:
                    t_order:
                      actualDataNodes: ds_0.t_order
                      keyGenerateStrategy:
                        column: id
                        keyGeneratorName: nope
                """);
        assertMentions(e, "table t_order", "keyGenerateStrategy", "'nope' is not defined");
    }

    @Test
    void tableCannotBeShardedAndBroadcast() {
        RuleCompilationException e = failure("""
                  tables:
                    t_dict:
                      actualDataNodes: ds_0.t_dict
                  broadcastTables:
                    - t_dict
                """);
        assertMentions(e, "t_dict", "both sharded and broadcast");
    }

    @Test
    void singleRuleDefaultDataSourceMustExist() {
        RuleCompilationException e = assertThrows(RuleCompilationException.class, () -> RuleYaml.compile("""
                dataSources:
                  ds_0: {}
                rules:
                - !SINGLE
                  tables:
                    - "*.*"
                  defaultDataSource: ds_9
                """));
        assertMentions(e, "defaultDataSource", "ds_9");
    }

    @Test
    void autoTablesAreSpreadOverTheDataSourcesInTurn() {
        ShardingRules rules = RuleYaml.compile(HEADER + """
                  autoTables:
                    t_auto:
                      shardingStrategy:
                        standard:
                          shardingColumn: id
                          shardingAlgorithmName: mod_4
                  shardingAlgorithms:
                    mod_4:
                      type: MOD
                      props:
                        sharding-count: 4
                """);
        ShardingTable table = (ShardingTable) rules.find("t_auto").orElseThrow();
        assertEquals("[ds_0.t_auto_0, ds_0.t_auto_2, ds_1.t_auto_1, ds_1.t_auto_3]", table.dataNodes().toString());
    }

    @Test
    void nodesAreOrderedByDataSourceThenAsWritten() {
        ShardingRules rules = RuleYaml.compile(HEADER + """
                  tables:
                    t_order:
                      actualDataNodes: ds_1.t_order_1, ds_0.t_order_0, ds_1.t_order_0
                """);
        assertEquals("[ds_0.t_order_0, ds_1.t_order_1, ds_1.t_order_0]", ((ShardingTable) rules.find("t_order").orElseThrow()).dataNodes().toString());
    }

    @Test
    void missingActualDataNodesMeanTheLogicTableOnEveryDataSource() {
        ShardingRules rules = RuleYaml.compile(HEADER + """
                  tables:
                    T_Order:
                      databaseStrategy:
                        standard:
                          shardingColumn: id
                          shardingAlgorithmName: mod_2
                """ + ALGORITHMS);
        ShardingTable table = (ShardingTable) rules.find("t_order").orElseThrow();
        assertEquals("[ds_0.t_order, ds_1.t_order]", table.dataNodes().toString());
        assertEquals(List.of("id"), table.shardingColumns());
    }

    @Test
    void singleAndBroadcastTablesAndTheDefaultDataSource() {
        ShardingRules rules = RuleYaml.compile("""
                dataSources:
                  ds_0: {}
                  ds_1: {}
                singleTables:
                  t_config: ds_1
                  t_dict: ds_0
                rules:
                - !BROADCAST
                  tables:
                    - t_dict
                - !SINGLE
                  tables:
                    - ds_0.t_moved
                  defaultDataSource: ds_1
                """);
        assertEquals("ds_1", rules.defaultDataSource());
        assertEquals(new SingleTable("t_config", "ds_1", 1), rules.find("t_config").orElseThrow());
        assertEquals(new SingleTable("t_moved", "ds_0", 0), rules.find("t_moved").orElseThrow());
        assertEquals(new BroadcastTable("t_dict"), rules.find("t_dict").orElseThrow());
        assertFalse(rules.isEmpty());
    }

    @Test
    void noRulesIsAPlainPooler() {
        ShardingRules rules = ShardingRules.compile(List.of(), List.of("ds"), Map.of("t", "ds"));
        assertTrue(rules.isEmpty());
        assertEquals("ds", rules.defaultDataSource());
        assertTrue(ShardingRules.NONE.isEmpty());
        ShardingRules twoSources = ShardingRules.compile(List.of(), List.of("a", "b"), Map.of("t", "b"));
        assertFalse(twoSources.isEmpty());
    }

    @Test
    void withSingleTableAddsATableButKeepsRuleTables() {
        ShardingRules rules = RuleYaml.compile(HEADER + """
                  broadcastTables:
                    - t_dict
                """);
        ShardingRules added = rules.withSingleTable("T_New", "ds_1");
        assertEquals(new SingleTable("t_new", "ds_1", 1), added.find("t_new").orElseThrow());
        assertTrue(rules.find("t_new").isEmpty());
        assertTrue(rules.withSingleTable("t_dict", "ds_1") == rules);
        assertTrue(added.withoutSingleTable("t_new").find("t_new").isEmpty());
    }
}
