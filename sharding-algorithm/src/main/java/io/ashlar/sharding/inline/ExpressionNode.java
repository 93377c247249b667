package io.ashlar.sharding.inline;

import io.ashlar.sharding.ShardingAlgorithmException;

import java.util.ArrayList;
import java.util.List;

/**
 * A compiled piece of an inline expression. Nodes are immutable; {@link #evaluate} takes the
 * variable values by index (the order of {@link InlineExpression#variables()}), so evaluation does
 * no name lookup.
 */
sealed interface ExpressionNode {

    /** Ranges longer than this are refused rather than expanded into millions of names. */
    int MAX_RANGE_SIZE = 100_000;

    Object evaluate(Object[] values);

    /** A number or string literal. */
    record Literal(Object value) implements ExpressionNode {

        @Override
        public Object evaluate(Object[] values) {
            return value;
        }
    }

    /** A sharding column, by its index among the expression's variables. */
    record Variable(int index, String name) implements ExpressionNode {

        @Override
        public Object evaluate(Object[] values) {
            if (index >= values.length || values[index] == null) {
                throw new ShardingAlgorithmException("no value for '" + name + "'");
            }
            return values[index];
        }
    }

    /** {@code + - * / %}. */
    record Binary(char operator, ExpressionNode left, ExpressionNode right) implements ExpressionNode {

        @Override
        public Object evaluate(Object[] values) {
            Object a = left.evaluate(values);
            Object b = right.evaluate(values);
            return switch (operator) {
                case '+' -> GroovyMath.plus(a, b);
                case '-' -> GroovyMath.minus(a, b);
                case '*' -> GroovyMath.multiply(a, b);
                case '/' -> GroovyMath.divide(a, b);
                default -> GroovyMath.remainder(a, b);
            };
        }
    }

    /** Unary minus. */
    record Negate(ExpressionNode operand) implements ExpressionNode {

        @Override
        public Object evaluate(Object[] values) {
            return GroovyMath.negate(operand.evaluate(values));
        }
    }

    /** {@code target.method(args)}, or a static call such as {@code Math.abs(x)} (no target). */
    record Call(InlineMethod method, ExpressionNode target, ExpressionNode[] arguments) implements ExpressionNode {

        @Override
        public Object evaluate(Object[] values) {
            Object self = target == null ? null : target.evaluate(values);
            Object[] args = new Object[arguments.length];
            for (int i = 0; i < args.length; i++) {
                args[i] = arguments[i].evaluate(values);
            }
            return method.apply(self, args);
        }
    }

    /** A double-quoted string with {@code ${...}} inside; parts are Strings and nodes. */
    record Interpolation(Object[] parts) implements ExpressionNode {

        @Override
        public Object evaluate(Object[] values) {
            StringBuilder result = new StringBuilder();
            for (Object each : parts) {
                if (each instanceof ExpressionNode node) {
                    Object value = node.evaluate(values);
                    if (value instanceof List) {
                        throw new ShardingAlgorithmException("a list or range cannot be part of a string");
                    }
                    result.append(GroovyMath.render(value));
                } else {
                    result.append((String) each);
                }
            }
            return result.toString();
        }
    }

    /** {@code [a, b, c]} (data node expressions only). */
    record ListOf(ExpressionNode[] elements) implements ExpressionNode {

        @Override
        public Object evaluate(Object[] values) {
            List<Object> result = new ArrayList<>(elements.length);
            for (ExpressionNode each : elements) {
                Object value = each.evaluate(values);
                if (value instanceof List) {
                    throw new ShardingAlgorithmException("a list or range cannot be an element of a list");
                }
                result.add(value);
            }
            return result;
        }
    }

    /**
     * {@code from..to} or {@code from..<to} over integers or single characters; descending when
     * {@code from > to}, as Groovy's IntRange (data node expressions only).
     */
    record Range(ExpressionNode from, ExpressionNode to, boolean exclusive) implements ExpressionNode {

        @Override
        public Object evaluate(Object[] values) {
            Object start = from.evaluate(values);
            Object end = to.evaluate(values);
            if (start instanceof String first && end instanceof String last && first.length() == 1 && last.length() == 1) {
                List<Object> result = new ArrayList<>();
                for (long each : steps(first.charAt(0), last.charAt(0))) {
                    result.add(String.valueOf((char) each));
                }
                return result;
            }
            Number a = GroovyMath.number(start, "..");
            Number b = GroovyMath.number(end, "..");
            if (!isIntegral(a) || !isIntegral(b)) {
                throw new ShardingAlgorithmException("a range needs integer ends, got " + GroovyMath.describe(start) + " and " + GroovyMath.describe(end));
            }
            boolean ints = a instanceof Integer && b instanceof Integer;
            List<Object> result = new ArrayList<>();
            for (long each : steps(a.longValue(), b.longValue())) {
                result.add(ints ? (Object) (int) each : (Object) each);
            }
            return result;
        }

        private long[] steps(long first, long last) {
            long count = Math.abs(last - first) + (exclusive ? 0 : 1);
            if (count > MAX_RANGE_SIZE || count < 0) {
                throw new ShardingAlgorithmException("range " + first + (exclusive ? "..<" : "..") + last + " has more than " + MAX_RANGE_SIZE + " elements");
            }
            long step = last >= first ? 1 : -1;
            long[] result = new long[(int) count];
            for (int i = 0; i < result.length; i++) {
                result[i] = first + i * step;
            }
            return result;
        }

        private static boolean isIntegral(Number value) {
            return value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte;
        }
    }
}
