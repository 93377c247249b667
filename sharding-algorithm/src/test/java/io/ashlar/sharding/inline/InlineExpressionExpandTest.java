package io.ashlar.sharding.inline;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Data node and data source lists. The order is ShardingSphere's (Guava's cartesian product: the
 * first placeholder varies slowest); several cases are the ones of ShardingSphere's
 * {@code GroovyInlineExpressionParserTest}.
 */
class InlineExpressionExpandTest {

    @Test
    void cartesianProductFirstPlaceholderSlowest() {
        assertEquals(List.of("ds_0.t_order_0", "ds_0.t_order_1", "ds_0.t_order_2", "ds_0.t_order_3", "ds_1.t_order_0", "ds_1.t_order_1", "ds_1.t_order_2",
                "ds_1.t_order_3"), InlineExpression.expand("ds_${0..1}.t_order_${0..3}"));
        assertEquals(List.of("ds_0.t_order_0", "ds_0.t_order_1", "ds_1.t_order_0", "ds_1.t_order_1"), InlineExpression.expand("ds_$->{0..1}.t_order_$->{0..1}"));
    }

    @Test
    void lists() {
        assertEquals(List.of("ds_a.t", "ds_b.t"), InlineExpression.expand("ds_${['a','b']}.t"));
        assertEquals(List.of("ds_0", "ds_1"), InlineExpression.expand("ds_${[0,1]}"));
        assertEquals(List.of("t_order_0", "t_order_1", "t_order_2", "t_order_item_0", "t_order_item_2"), InlineExpression.expand("t_order_${[0, 1, 2]},t_order_item_${[0, 2]}"));
        assertEquals(List.of("t_a"), InlineExpression.expand("t_${['a', 'a']}"));
    }

    @Test
    void rangesIncludingReversedAndExclusive() {
        assertEquals(List.of("t_3", "t_2", "t_1", "t_0"), InlineExpression.expand("t_${3..0}"));
        assertEquals(List.of("t_0", "t_1", "t_2"), InlineExpression.expand("t_${0..<3}"));
        assertEquals(List.of("t_0", "t_1", "t_2", "t_3"), InlineExpression.expand("t_${0..(2 * 2 - 1)}"));
        assertEquals(List.of("t_a", "t_b", "t_c"), InlineExpression.expand("t_${'a'..'c'}"));
    }

    @Test
    void severalExpressionsSeparatedByTopLevelCommas() {
        assertEquals(List.of("ds_0.t_0", "ds_0.t_1", "ds_1.t_2", "ds_1.t_3"), InlineExpression.expand("ds_0.t_${0..1},ds_1.t_${2..3}"));
        assertEquals(List.of("ds_0.t_0", "ds_0.t_1", "ds_1.t_2", "ds_1.t_3"), InlineExpression.expand("  ds_0.t_${0..1} ,\n  ds_1.t_${2..3}  "));
        assertEquals(List.of("t_new_order_1", "t_new_order_2", "t_old_order_1", "t_old_order_2", "t_config"),
                InlineExpression.expand("t_${['new','old']}_order_${1..2}, t_config"));
    }

    @Test
    void constantListsAreSplitAndTrimmed() {
        assertEquals(List.of("t_order_0", "t_order_1"), InlineExpression.expand(" t_order_0, t_order_1 "));
        assertEquals(List.of("a", "b"), InlineExpression.expand("a,,b,"));
        assertEquals(List.of(), InlineExpression.expand(""));
        assertEquals(List.of("t_${0..1}", "x"), InlineExpression.expand("<LITERAL>t_${0..1}, x"));
    }

    @Test
    void interpolationInsideListElements() {
        // ShardingSphere's assertEvaluateForCalculate
        assertEquals(List.of("t_new3_order_1", "t_new3_order_2", "t_old_order_1", "t_old_order_2"), InlineExpression.expand("t_${[\"new${1+2}\",'old']}_order_${1..2}"));
        assertEquals(List.of("t_new3_order_1", "t_new3_order_2", "t_old_order_1", "t_old_order_2"),
                InlineExpression.expand("t_$->{[\"new$->{1+2}\",'old']}_order_$->{1..2}"));
        assertEquals(List.of("t_order_xx"), InlineExpression.expand("t_order_${'xx'}"));
    }

    @Test
    void longListOfLiterals() {
        StringBuilder expression = new StringBuilder();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 1024; i++) {
            String name = "ds_" + i / 64 + ".t_user_" + i;
            expected.add(name);
            expression.append(i == 0 ? "" : ",").append(name);
        }
        assertEquals(expected, InlineExpression.expand(expression.toString()));
    }

    @Test
    void errors() {
        InlineExpressionException column = assertThrows(InlineExpressionException.class, () -> InlineExpression.expand("ds_0.t_${order_id}"));
        assertEquals("unsupported name 'order_id' (data node expressions cannot use columns) at position 9 in expression 'ds_0.t_${order_id}'", column.getMessage());
        InlineExpressionException unclosed = assertThrows(InlineExpressionException.class, () -> InlineExpression.expand("ds_${0..1"));
        assertEquals(9, unclosed.position());
        InlineExpressionException nested = assertThrows(InlineExpressionException.class, () -> InlineExpression.expand("t_0, t_${0..1 ? 2}"));
        assertEquals(14, nested.position());
    }
}
