package io.ashlar.sharding.inline;

import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.inline.ExpressionNode.Binary;
import io.ashlar.sharding.inline.ExpressionNode.Literal;
import io.ashlar.sharding.inline.ExpressionNode.Variable;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A ShardingSphere inline expression compiled once into a small evaluator, without Groovy or a
 * script engine
 * (<a href="https://shardingsphere.apache.org/document/current/en/dev-manual/sharding/">Inline Expression</a>,
 * {@code ${...}} and {@code $->{...}} alike).
 *
 * <p>Two uses:
 * <ul>
 * <li>{@link #compile} an {@code algorithm-expression} such as {@code t_order_${order_id % 4}} or
 * {@code ds_${Math.abs(user_id.hashCode()) % 2}}; its {@link #variables()} are the sharding
 * columns it reads, and {@link #evaluate} takes their values by that index, so routing does no
 * map lookup. Arithmetic follows Groovy (see {@link GroovyMath}: {@code ${id / 2}} with id 5 is
 * {@code 2.5}; {@code intdiv} divides integers).</li>
 * <li>{@link #expand} an {@code actualDataNodes} or data source list such as
 * {@code ds_${0..1}.t_order_${0..3}} into names: top-level commas separate expressions, each
 * expression yields the cartesian product of its placeholders with the first placeholder varying
 * slowest, as ShardingSphere does ({@code ds_0.t_order_0, ds_0.t_order_1, ..., ds_1.t_order_3}).
 * Placeholders there may hold ranges ({@code 0..3}, {@code 0..<4}, {@code 3..0}) and lists
 * ({@code [0, 2]}, {@code ['a', 'b']}).</li>
 * </ul>
 * ShardingSphere 5.4's expression type prefixes are honoured: {@code <GROOVY>} and
 * {@code <ESPRESSO>} mean this syntax, {@code <LITERAL>} means plain comma-separated names.
 *
 * <p>Anything outside the supported subset fails at compile time with an
 * {@link InlineExpressionException} giving the position. Compiled expressions are immutable and
 * thread-safe.
 */
public final class InlineExpression {

    private final String source;

    private final Object[] parts;

    private final List<String> variables;

    private final int textLength;

    private final ModuloShape moduloShape;

    private InlineExpression(String source, Object[] parts, List<String> variables) {
        this.source = source;
        this.parts = parts;
        this.variables = List.copyOf(variables);
        int length = 0;
        for (Object each : parts) {
            length += each instanceof String text ? text.length() : 4;
        }
        this.textLength = length;
        this.moduloShape = findModuloShape(parts);
    }

    /**
     * Compiles an algorithm expression.
     *
     * @throws InlineExpressionException if the expression is outside the supported syntax
     */
    public static InlineExpression compile(String expression) {
        TypedText typed = TypedText.of(expression);
        if (typed.literal() || !InlineExpressionParser.isDynamic(typed.text())) {
            return new InlineExpression(expression, typed.text().isEmpty() ? new Object[0] : new Object[] {typed.text()}, List.of());
        }
        List<String> variables = new ArrayList<>();
        List<Object> parts = new InlineExpressionParser(expression, false, variables).parseTemplate(typed.start(), expression.length());
        return new InlineExpression(expression, parts.toArray(), variables);
    }

    /**
     * Expands a list of names: {@code actualDataNodes}, {@code actualDataSources} or any
     * comma-separated list with placeholders. Whitespace around names is dropped, and so are
     * empty entries.
     *
     * @throws InlineExpressionException if the expression is outside the supported syntax or
     *         uses a column
     */
    public static List<String> expand(String expression) {
        TypedText typed = TypedText.of(expression);
        List<String> result = new ArrayList<>();
        if (typed.literal() || !InlineExpressionParser.isDynamic(typed.text())) {
            for (String each : typed.text().split(",")) {
                if (!each.isBlank()) {
                    result.add(each.trim());
                }
            }
            return result;
        }
        for (int[] segment : splitTopLevel(expression, typed.start())) {
            List<Object> parts = new InlineExpressionParser(expression, true, new ArrayList<>()).parseTemplate(segment[0], segment[1]);
            result.addAll(cartesian(expression, parts));
        }
        return result;
    }

    /** The expression as written. */
    public String source() {
        return source;
    }

    /** The column names the expression reads, in order of first use; values are passed in this order. */
    public List<String> variables() {
        return variables;
    }

    /** Whether the expression has no placeholder (it always yields the same text). */
    public boolean isConstant() {
        return variables.isEmpty() && (parts.length == 0 || parts.length == 1 && parts[0] instanceof String);
    }

    /**
     * Evaluates the expression.
     *
     * @param values the values of {@link #variables()}, in that order
     * @throws ShardingAlgorithmException if a value cannot be used, e.g. {@code %} on a
     *         non-numeric string or a division by zero
     */
    public String evaluate(Object... values) {
        if (parts.length == 1 && parts[0] instanceof String text) {
            return text;
        }
        StringBuilder result = new StringBuilder(textLength);
        try {
            for (Object each : parts) {
                if (each instanceof ExpressionNode node) {
                    result.append(GroovyMath.render(node.evaluate(values)));
                } else {
                    result.append((String) each);
                }
            }
        } catch (ShardingAlgorithmException e) {
            throw new ShardingAlgorithmException("cannot evaluate '" + source + "': " + e.getMessage(), e);
        }
        return result.toString();
    }

    /**
     * The shape {@code <prefix>${<variable> % <modulus>}<suffix>}, the commonest algorithm
     * expression, which a router can turn into a table lookup: for Integer, Long, Short and Byte
     * values the result is {@code prefix + (value % modulus) + suffix} with Java's remainder (sign
     * of the value), exactly as Groovy computes it.
     */
    public Optional<ModuloShape> moduloShape() {
        return Optional.ofNullable(moduloShape);
    }

    @Override
    public String toString() {
        return source;
    }

    /**
     * See {@link #moduloShape()}.
     *
     * @param prefix text before the placeholder
     * @param variable index of the variable in {@link #variables()}
     * @param modulus a positive divisor
     * @param suffix text after the placeholder
     */
    public record ModuloShape(String prefix, int variable, int modulus, String suffix) {
    }

    private static ModuloShape findModuloShape(Object[] parts) {
        int node = -1;
        for (int i = 0; i < parts.length; i++) {
            if (parts[i] instanceof ExpressionNode) {
                if (node >= 0) {
                    return null;
                }
                node = i;
            }
        }
        if (node < 0 || !(parts[node] instanceof Binary binary) || binary.operator() != '%'
                || !(binary.left() instanceof Variable variable) || !(binary.right() instanceof Literal literal)
                || !(literal.value() instanceof Integer modulus) || modulus <= 0) {
            return null;
        }
        String prefix = node > 0 ? (String) parts[0] : "";
        String suffix = node + 1 < parts.length ? (String) parts[node + 1] : "";
        return new ModuloShape(prefix, variable.index(), modulus, suffix);
    }

    /** Segment bounds {@code [start, end)} between top-level commas, trimmed, empty ones dropped. */
    private static List<int[]> splitTopLevel(String expression, int start) {
        List<int[]> result = new ArrayList<>();
        int depth = 0;
        int segmentStart = start;
        for (int i = start; i <= expression.length(); i++) {
            if (i == expression.length() || expression.charAt(i) == ',' && depth == 0) {
                int from = segmentStart;
                int to = i;
                while (from < to && Character.isWhitespace(expression.charAt(from))) {
                    from++;
                }
                while (to > from && Character.isWhitespace(expression.charAt(to - 1))) {
                    to--;
                }
                if (from < to) {
                    result.add(new int[] {from, to});
                }
                segmentStart = i + 1;
            } else if (expression.startsWith("${", i) || expression.startsWith("$->{", i)) {
                depth++;
            } else if (expression.charAt(i) == '}' && depth > 0) {
                depth--;
            }
        }
        return result;
    }

    private static List<String> cartesian(String expression, List<Object> parts) {
        List<String> result = new ArrayList<>();
        result.add("");
        for (Object part : parts) {
            if (part instanceof String text) {
                result.replaceAll(each -> each + text);
                continue;
            }
            Set<String> values = new LinkedHashSet<>();
            Object value;
            try {
                value = ((ExpressionNode) part).evaluate(new Object[0]);
            } catch (ShardingAlgorithmException e) {
                throw new ShardingAlgorithmException("cannot evaluate '" + expression + "': " + e.getMessage(), e);
            }
            if (value instanceof List<?> list) {
                for (Object each : list) {
                    values.add(GroovyMath.render(each));
                }
            } else {
                values.add(GroovyMath.render(value));
            }
            List<String> next = new ArrayList<>(result.size() * values.size());
            for (String prefix : result) {
                for (String each : values) {
                    next.add(prefix + each);
                }
            }
            result = next;
        }
        return result;
    }

    /** An expression with its optional {@code <TYPE>} prefix (ShardingSphere 5.4+) removed. */
    private record TypedText(String text, int start, boolean literal) {

        static TypedText of(String expression) {
            if (!expression.startsWith("<")) {
                return new TypedText(expression, 0, false);
            }
            int close = expression.indexOf('>');
            if (close < 2) {
                return new TypedText(expression, 0, false);
            }
            String type = expression.substring(1, close);
            for (int i = 0; i < type.length(); i++) {
                char c = type.charAt(i);
                if (!(c >= 'A' && c <= 'Z' || c == '_')) {
                    return new TypedText(expression, 0, false);
                }
            }
            return switch (type) {
                case "GROOVY", "ESPRESSO" -> new TypedText(expression.substring(close + 1), close + 1, false);
                case "LITERAL" -> new TypedText(expression.substring(close + 1), close + 1, true);
                default -> throw new InlineExpressionException("unsupported inline expression type '" + type + "'", expression, 0);
            };
        }
    }
}
