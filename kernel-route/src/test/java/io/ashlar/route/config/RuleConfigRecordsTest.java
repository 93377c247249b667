package io.ashlar.route.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RuleConfigRecordsTest {

    @Test
    void algorithmPropsKeepFileOrderAndCannotChange() {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("z-last", "1");
        props.put("a-first", "2");
        AlgorithmConfig algorithm = new AlgorithmConfig("INLINE", props);
        props.put("later", "3");
        assertEquals(List.of("z-last", "a-first"), List.copyOf(algorithm.props().keySet()));
        assertThrows(UnsupportedOperationException.class, () -> algorithm.props().put("x", "y"));
    }

    @Test
    void shardingRuleTablesKeepFileOrder() {
        Map<String, TableRuleConfig> tables = new LinkedHashMap<>();
        for (String each : List.of("t_order", "t_address", "t_b")) {
            tables.put(each, new TableRuleConfig(each, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
        }
        ShardingRuleConfig rule = new ShardingRuleConfig(tables, Map.of(), List.of(), List.of(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), Map.of());
        assertEquals(List.of("t_order", "t_address", "t_b"), List.copyOf(rule.tables().keySet()));
    }

    @Test
    void blankNamesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ShardingStrategyConfig.Standard(" ", "mod"));
        assertThrows(IllegalArgumentException.class, () -> new KeyGenerateStrategyConfig("order_id", ""));
        assertThrows(IllegalArgumentException.class, () -> new ShardingStrategyConfig.Complex(List.of(), "c"));
        assertThrows(NullPointerException.class, () -> new AlgorithmConfig(null, Map.of()));
    }

    @Test
    void strategiesNameTheirAlgorithm() {
        assertEquals(Optional.of("mod"), new ShardingStrategyConfig.Standard("user_id", "mod").algorithmName());
        assertEquals(Optional.of("h"), new ShardingStrategyConfig.Hint("h").algorithmName());
        assertEquals(Optional.empty(), ShardingStrategyConfig.None.INSTANCE.algorithmName());
        assertEquals(ShardingStrategyConfig.None.INSTANCE, new ShardingStrategyConfig.None());
    }
}
