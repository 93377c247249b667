package io.ashlar.sharding.inline;

import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.inline.InlineExpression.ModuloShape;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Algorithm expressions. Expected values are what Groovy computes for the same GString; the
 * non-obvious ones are worked out in the comments.
 */
class InlineExpressionTest {

    private static String eval(String expression, Object... values) {
        return InlineExpression.compile(expression).evaluate(values);
    }

    @Test
    void modulo() {
        assertEquals("t_order_2", eval("t_order_${order_id % 4}", 10));
        assertEquals("ds_1", eval("ds_${user_id % 2}", 7L));
        assertEquals("ds_1", eval("ds_$->{user_id % 2}", 7));
    }

    @Test
    void moduloOfNegativeValueKeepsTheSignOfTheDividend() {
        // Groovy's % on integers is Java's remainder
        assertEquals("t_order_-2", eval("t_order_${order_id % 4}", -10));
        assertEquals("t_-1", eval("t_${id % 3}", new BigInteger("-10")));
    }

    @Test
    void variablesAreListedInOrderOfFirstUse() {
        InlineExpression expression = InlineExpression.compile("t_${b % 2}_${a % 2}_${b}");
        assertEquals(List.of("b", "a"), expression.variables());
        assertEquals("t_1_0_3", expression.evaluate(3, 4));
    }

    @Test
    void intdivIsIntegerDivision() {
        // (7 % 8).intdiv(2) = 7.intdiv(2) = 3; (13 % 8).intdiv(2) = 5.intdiv(2) = 2
        assertEquals("t_3", eval("t_${(order_id % 8).intdiv(2)}", 7));
        assertEquals("t_2", eval("t_${(order_id % 8).intdiv(2)}", 13L));
        assertEquals("t_-2", eval("t_${order_id.intdiv(2)}", -5));
    }

    @Test
    void slashOnIntegersYieldsADecimalAsInGroovy() {
        assertEquals("2.5", eval("${id / 2}", 5));
        assertEquals("2", eval("${id / 2}", 4));
        assertEquals("2.5", eval("${id / 2}", 5L));
        // non-terminating: precision max(1, 1) + 10 = 11 digits, then scale 10 rounded half up
        assertEquals("0.3333333333", eval("${id / 3}", 1));
        assertEquals("0.6666666667", eval("${id / 3}", 2));
        assertEquals("2.5", eval("${id / 2}", 5.0d));
        assertEquals("1.25", eval("${id / 2}", new BigDecimal("2.50")));
    }

    @Test
    void hashCodeIsTheHashOfTheValuesJavaType() {
        // Integer.hashCode(-3) = -3 -> abs 3 -> 3 % 2 = 1
        assertEquals("ds_1", eval("ds_${Math.abs(user_id.hashCode()) % 2}", -3));
        // Long.hashCode(-3) = (int) (-3 ^ (-3 >>> 32)) = (int) 0xFFFFFFFF00000002 = 2 -> 0
        assertEquals("ds_0", eval("ds_${Math.abs(user_id.hashCode()) % 2}", -3L));
        // "abc".hashCode() = 96354 -> 0; "10".hashCode() = 1567
        assertEquals("ds_0", eval("ds_${Math.abs(user_id.hashCode()) % 2}", "abc"));
        assertEquals("1567", eval("${id.hashCode()}", "10"));
        assertEquals("-1", eval("${id.hashCode()}", -1));
        assertEquals("0", eval("${id.hashCode()}", -1L));
    }

    @Test
    void mathAbsOfIntMinValueStaysNegativeAsInJava() {
        // Math.abs(Integer.MIN_VALUE) == Integer.MIN_VALUE; -2147483648 % 3 == -2
        assertEquals("ds_-2", eval("ds_${Math.abs(id.hashCode()) % 3}", Integer.MIN_VALUE));
        assertEquals("ds_0", eval("ds_${Math.abs(id.hashCode()) % 2}", Integer.MIN_VALUE));
    }

    @Test
    void absMethod() {
        assertEquals("1", eval("${user_id.abs() % 2}", -5));
        assertEquals("5", eval("${user_id.abs()}", new BigInteger("-5")));
        // unary minus binds looser than a method call: -(2.abs())
        assertEquals("-2", eval("${-2.abs()}"));
        assertEquals("-3", eval("${-id}", 3));
    }

    @Test
    void arithmeticPrecedenceAndParentheses() {
        assertEquals("7", eval("${id * 2 + 1}", 3));
        assertEquals("8", eval("${(id + 1) * 2}", 3));
        assertEquals("1", eval("${id - 2 - 3}", 6));
        assertEquals("ds_2", eval("ds_${user_id % 2 + 1}", 5));
        assertEquals("2", eval("${id % 4L}", 10));
    }

    @Test
    void intAndLongOverflowWrapAsInGroovy() {
        assertEquals("-2", eval("${id * 2}", Integer.MAX_VALUE));
        assertEquals("4294967294", eval("${id * 2}", (long) Integer.MAX_VALUE));
        assertEquals("-2", eval("${id * 2}", Long.MAX_VALUE));
        assertEquals("18446744073709551614", eval("${id * 2}", BigInteger.valueOf(Long.MAX_VALUE)));
    }

    @Test
    void plusWithAStringConcatenates() {
        assertEquals("t_3", eval("${'t_' + id}", 3));
        assertEquals("3_x", eval("${id + '_x'}", 3));
        assertEquals("4_x", eval("${id + 1 + '_x'}", 3));
        assertEquals("t_31", eval("${'t_' + id + 1}", 3));
        assertEquals("t_a", eval("${\"t_\" + id}", "a"));
        assertEquals("t_new3", eval("t_${\"new${1 + 2}\"}"));
    }

    @Test
    void numericStringsAreNumbersInArithmetic() {
        assertEquals("t_order_2", eval("t_order_${order_id % 4}", "10"));
        assertEquals("t_order_2", eval("t_order_${order_id % 4}", "123456789012345678902"));
        assertEquals("3", eval("${id.abs()}", "-3"));
    }

    @Test
    void stringMethods() {
        assertEquals("BJ", eval("${code.substring(0, 2)}", "BJ001"));
        assertEquals("001", eval("${code.substring(2)}", "BJ001"));
        assertEquals("007", eval("${id.toString().padLeft(3, '0')}", 7));
        assertEquals("t_1", eval("t_${Long.parseLong(code.substring(2)) % 2}", "BJ001"));
        assertEquals("5", eval("${code.length()}", "BJ001"));
        assertEquals("bj", eval("${code.toLowerCase()}", "BJ"));
    }

    @Test
    void constantExpression() {
        InlineExpression expression = InlineExpression.compile("ds_0");
        assertTrue(expression.isConstant());
        assertEquals(List.of(), expression.variables());
        assertEquals("ds_0", expression.evaluate());
        assertEquals("t_$a", eval("t_$a"));
    }

    @Test
    void moduloShape() {
        assertEquals(Optional.of(new ModuloShape("t_order_", 0, 4, "")), InlineExpression.compile("t_order_${order_id % 4}").moduloShape());
        assertEquals(Optional.of(new ModuloShape("", 0, 2, "_x")), InlineExpression.compile("${a % 2}_x").moduloShape());
        assertFalse(InlineExpression.compile("t_${a % 2 + 1}").moduloShape().isPresent());
        assertFalse(InlineExpression.compile("t_${a % 2}_${b % 2}").moduloShape().isPresent());
        assertFalse(InlineExpression.compile("t_${a % 0}").moduloShape().isPresent());
    }

    @Test
    void unsupportedTokenReportsItsPosition() {
        InlineExpressionException e = assertThrows(InlineExpressionException.class, () -> InlineExpression.compile("t_${a ? 1 : 2}"));
        assertEquals("unsupported token '?' at position 6 in expression 't_${a ? 1 : 2}'", e.getMessage());
        assertEquals(6, e.position());
        assertEquals("t_${a ? 1 : 2}", e.expression());
    }

    @Test
    void otherSyntaxErrorsReportTheirPosition() {
        assertPosition("${a == 1}", 4, "unsupported token '='");
        assertPosition("t_${a.foo()}", 6, "unsupported method 'foo'");
        assertPosition("t_${a % 2", 9, "unexpected end of expression, expected '}'");
        assertPosition("t_${0..1}", 5, "unsupported token '..' (ranges are only allowed in data node expressions)");
        assertPosition("t_${[0, 1]}", 4, "unsupported token '[' (lists are only allowed in data node expressions)");
        assertPosition("t_${a}_$b", 7, "unsupported token '$'");
        assertPosition("t_${a.intdiv()}", 6, "method 'intdiv' takes 1 argument(s), not 0");
        assertPosition("t_${a ** 2}", 6, "unsupported token '**'");
        assertPosition("t_${'abc}", 4, "unterminated string");
        assertPosition("t_${Math.max(a, 1)}", 9, "unsupported method 'Math.max'");
        assertPosition("<INTERVAL>t_${a}", 0, "unsupported inline expression type 'INTERVAL'");
        assertPosition("t_${a % 99999999999999999999L}", 8, "integer literal too large for a long");
        assertPosition("t_${a.hashCode}", 6, "unsupported property 'hashCode' (expected a call with parentheses)");
    }

    private static void assertPosition(String expression, int position, String problem) {
        InlineExpressionException e = assertThrows(InlineExpressionException.class, () -> InlineExpression.compile(expression));
        assertEquals(problem + " at position " + position + " in expression '" + expression + "'", e.getMessage());
        assertEquals(position, e.position());
    }

    @Test
    void evaluationErrorsNameTheExpressionAndTheProblem() {
        InlineExpression expression = InlineExpression.compile("t_${id % 2}");
        ShardingAlgorithmException e = assertThrows(ShardingAlgorithmException.class, () -> expression.evaluate("abc"));
        assertEquals("cannot evaluate 't_${id % 2}': % needs a number, got 'abc' (java.lang.String)", e.getMessage());
        assertEquals("cannot evaluate 't_${id % 0}': division by zero",
                assertThrows(ShardingAlgorithmException.class, () -> eval("t_${id % 0}", 3)).getMessage());
        assertEquals("cannot evaluate 't_${(id / 2).intdiv(1)}': intdiv() needs integers, got '2.5' (java.math.BigDecimal)",
                assertThrows(ShardingAlgorithmException.class, () -> eval("t_${(id / 2).intdiv(1)}", 5)).getMessage());
        assertEquals("cannot evaluate 't_${id}': no value for 'id'", assertThrows(ShardingAlgorithmException.class, () -> eval("t_${id}")).getMessage());
    }

    @Test
    void typePrefixes() {
        assertEquals("ds_1", eval("<GROOVY>ds_${id % 2}", 3));
        assertEquals("t_${x}", eval("<LITERAL>t_${x}"));
        assertPosition("<GROOVY>t_${a ? 1 : 2}", 14, "unsupported token '?'");
    }
}
