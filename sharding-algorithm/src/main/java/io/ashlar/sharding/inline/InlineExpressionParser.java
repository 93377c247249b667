package io.ashlar.sharding.inline;

import io.ashlar.sharding.inline.ExpressionNode.Binary;
import io.ashlar.sharding.inline.ExpressionNode.Call;
import io.ashlar.sharding.inline.ExpressionNode.Interpolation;
import io.ashlar.sharding.inline.ExpressionNode.ListOf;
import io.ashlar.sharding.inline.ExpressionNode.Literal;
import io.ashlar.sharding.inline.ExpressionNode.Negate;
import io.ashlar.sharding.inline.ExpressionNode.Range;
import io.ashlar.sharding.inline.ExpressionNode.Variable;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Recursive-descent parser for the Groovy subset of ShardingSphere inline expressions: a
 * template of text and {@code ${...}} / {@code $->{...}} placeholders, each holding
 * <pre>
 * expression     = additive [ (".." | "..<") additive ]          (ranges: data nodes only)
 * additive       = multiplicative { ("+" | "-") multiplicative }
 * multiplicative = unary { ("*" | "/" | "%") unary }
 * unary          = ("-" | "+") unary | postfix
 * postfix        = primary { "." method "(" [ expression { "," expression } ] ")" }
 * primary        = number | 'text' | "text with ${...}" | name | "(" expression ")"
 *                | "[" [ expression { "," expression } ] "]"      (lists: data nodes only)
 *                | ("Math" | "Long" | "Integer" | "String") "." method "(" arguments ")"
 * </pre>
 * Anything else is refused with its 0-based position in the source. One parser instance parses
 * one expression; it is startup code, not the hot path.
 */
final class InlineExpressionParser {

    private final String source;

    private final boolean dataNodes;

    private final List<String> variables;

    private int pos;

    /**
     * @param source the whole expression, for positions and messages
     * @param dataNodes whether ranges and lists are allowed and variables refused
     * @param variables collects variable names in order of first use (shared by the segments of
     *        one expression)
     */
    InlineExpressionParser(String source, boolean dataNodes, List<String> variables) {
        this.source = source;
        this.dataNodes = dataNodes;
        this.variables = variables;
    }

    /** Whether a template contains a placeholder at all (otherwise it is constant text). */
    static boolean isDynamic(String text) {
        return text.contains("${") || text.contains("$->{");
    }

    /**
     * Parses {@code source[start, end)} as a template.
     *
     * @return Strings and {@link ExpressionNode}s, adjacent texts merged
     */
    List<Object> parseTemplate(int start, int end) {
        pos = start;
        List<Object> parts = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        while (pos < end) {
            char c = source.charAt(pos);
            if (c == '$') {
                int open = placeholderBody(pos);
                if (open < 0) {
                    throw unsupported("$", pos);
                }
                flush(text, parts);
                pos = open;
                parts.add(parsePlaceholder());
            } else if (c == '\\') {
                text.append(escape(end));
            } else {
                text.append(c);
                pos++;
            }
        }
        flush(text, parts);
        return parts;
    }

    private static void flush(StringBuilder text, List<Object> parts) {
        if (!text.isEmpty()) {
            parts.add(text.toString());
            text.setLength(0);
        }
    }

    /** Where the expression of a placeholder starting at {@code at} begins, or -1. */
    private int placeholderBody(int at) {
        if (source.startsWith("${", at)) {
            return at + 2;
        }
        if (source.startsWith("$->{", at)) {
            return at + 4;
        }
        return -1;
    }

    private ExpressionNode parsePlaceholder() {
        ExpressionNode result = parseExpression();
        skipWhitespace();
        if (pos >= source.length()) {
            throw new InlineExpressionException("unexpected end of expression, expected '}'", source, pos);
        }
        if (source.charAt(pos) != '}') {
            throw unsupported(pos);
        }
        pos++;
        return result;
    }

    private char escape(int end) {
        int at = pos;
        if (pos + 1 >= end) {
            throw unsupported("\\", at);
        }
        char next = source.charAt(pos + 1);
        pos += 2;
        return switch (next) {
            case '\\', '$', '\'', '"' -> next;
            case 'n' -> '\n';
            case 't' -> '\t';
            default -> throw unsupported("\\" + next, at);
        };
    }

    private ExpressionNode parseExpression() {
        ExpressionNode left = parseAdditive();
        skipWhitespace();
        if (source.startsWith("..", pos)) {
            int at = pos;
            if (!dataNodes) {
                throw new InlineExpressionException("unsupported token '..' (ranges are only allowed in data node expressions)", source, at);
            }
            pos += 2;
            boolean exclusive = pos < source.length() && source.charAt(pos) == '<';
            if (exclusive) {
                pos++;
            }
            return new Range(left, parseAdditive(), exclusive);
        }
        return left;
    }

    private ExpressionNode parseAdditive() {
        ExpressionNode result = parseMultiplicative();
        while (true) {
            skipWhitespace();
            char c = peek();
            if (c != '+' && c != '-') {
                return result;
            }
            pos++;
            result = new Binary(c, result, parseMultiplicative());
        }
    }

    private ExpressionNode parseMultiplicative() {
        ExpressionNode result = parseUnary();
        while (true) {
            skipWhitespace();
            char c = peek();
            if (c != '*' && c != '/' && c != '%') {
                return result;
            }
            if (c == '*' && source.startsWith("**", pos)) {
                throw unsupported("**", pos);
            }
            pos++;
            result = new Binary(c, result, parseUnary());
        }
    }

    private ExpressionNode parseUnary() {
        skipWhitespace();
        char c = peek();
        if (c == '-') {
            pos++;
            return new Negate(parseUnary());
        }
        if (c == '+') {
            pos++;
            return parseUnary();
        }
        return parsePostfix();
    }

    private ExpressionNode parsePostfix() {
        ExpressionNode result = parsePrimary();
        while (true) {
            skipWhitespace();
            if (peek() != '.' || source.startsWith("..", pos)) {
                return result;
            }
            pos++;
            skipWhitespace();
            int nameAt = pos;
            String name = identifier();
            if (name.isEmpty()) {
                throw unsupported(pos);
            }
            InlineMethod method = InlineMethod.instanceMethod(name)
                    .orElseThrow(() -> new InlineExpressionException("unsupported method '" + name + "'", source, nameAt));
            result = new Call(method, result, arguments(method, nameAt));
        }
    }

    private ExpressionNode parsePrimary() {
        skipWhitespace();
        int at = pos;
        if (at >= source.length()) {
            throw new InlineExpressionException("unexpected end of expression", source, at);
        }
        char c = source.charAt(at);
        if (c >= '0' && c <= '9') {
            return new Literal(number());
        }
        if (c == '\'') {
            return new Literal(singleQuoted());
        }
        if (c == '"') {
            return doubleQuoted();
        }
        if (c == '(') {
            pos++;
            ExpressionNode result = parseExpression();
            expect(')');
            return result;
        }
        if (c == '[') {
            if (!dataNodes) {
                throw new InlineExpressionException("unsupported token '[' (lists are only allowed in data node expressions)", source, at);
            }
            pos++;
            return new ListOf(list(']'));
        }
        if (Character.isJavaIdentifierStart(c) && c != '$') {
            String name = identifier();
            skipWhitespace();
            if (InlineMethod.isStaticOwner(name) && peek() == '.' && !source.startsWith("..", pos)) {
                pos++;
                skipWhitespace();
                int methodAt = pos;
                String methodName = identifier();
                InlineMethod method = InlineMethod.staticMethod(name, methodName)
                        .orElseThrow(() -> new InlineExpressionException("unsupported method '" + name + "." + methodName + "'", source, methodAt));
                return new Call(method, null, arguments(method, methodAt));
            }
            if (dataNodes) {
                throw new InlineExpressionException("unsupported name '" + name + "' (data node expressions cannot use columns)", source, at);
            }
            int index = variables.indexOf(name);
            if (index < 0) {
                index = variables.size();
                variables.add(name);
            }
            return new Variable(index, name);
        }
        throw unsupported(at);
    }

    private ExpressionNode[] arguments(InlineMethod method, int nameAt) {
        skipWhitespace();
        if (peek() != '(') {
            throw new InlineExpressionException("unsupported property '" + method.javaName() + "' (expected a call with parentheses)", source, nameAt);
        }
        pos++;
        ExpressionNode[] result = list(')');
        if (!method.accepts(result.length)) {
            throw new InlineExpressionException("method '" + method.javaName() + "' takes " + method.arity() + " argument(s), not " + result.length, source, nameAt);
        }
        return result;
    }

    /** Comma-separated expressions up to {@code close}, which is consumed. */
    private ExpressionNode[] list(char close) {
        List<ExpressionNode> result = new ArrayList<>();
        skipWhitespace();
        if (peek() == close) {
            pos++;
            return new ExpressionNode[0];
        }
        while (true) {
            result.add(parseExpression());
            skipWhitespace();
            char c = peek();
            if (c == ',') {
                pos++;
            } else if (c == close) {
                pos++;
                return result.toArray(new ExpressionNode[0]);
            } else if (pos >= source.length()) {
                throw new InlineExpressionException("unexpected end of expression, expected '" + close + "'", source, pos);
            } else {
                throw unsupported(pos);
            }
        }
    }

    private Number number() {
        int start = pos;
        while (pos < source.length() && Character.isDigit(source.charAt(pos))) {
            pos++;
        }
        boolean decimal = false;
        if (pos + 1 < source.length() && source.charAt(pos) == '.' && Character.isDigit(source.charAt(pos + 1))) {
            decimal = true;
            pos++;
            while (pos < source.length() && Character.isDigit(source.charAt(pos))) {
                pos++;
            }
        }
        String digits = source.substring(start, pos);
        char suffix = peek();
        if (suffix == 'L' || suffix == 'l') {
            if (decimal) {
                throw unsupported(pos);
            }
            BigInteger value = new BigInteger(digits);
            if (value.bitLength() >= 64) {
                throw new InlineExpressionException("integer literal too large for a long", source, start);
            }
            pos++;
            return value.longValue();
        }
        if (suffix == 'G' || suffix == 'g') {
            pos++;
            return decimal ? new BigDecimal(digits) : new BigInteger(digits);
        }
        if (Character.isJavaIdentifierPart(suffix) && suffix != 0) {
            throw unsupported(pos);
        }
        if (decimal) {
            return new BigDecimal(digits);
        }
        return GroovyMath.parseNumber(digits);
    }

    private String singleQuoted() {
        int at = pos;
        pos++;
        StringBuilder result = new StringBuilder();
        while (pos < source.length()) {
            char c = source.charAt(pos);
            if (c == '\'') {
                pos++;
                return result.toString();
            }
            if (c == '\\') {
                result.append(escape(source.length()));
            } else {
                result.append(c);
                pos++;
            }
        }
        throw new InlineExpressionException("unterminated string", source, at);
    }

    private ExpressionNode doubleQuoted() {
        int at = pos;
        pos++;
        List<Object> parts = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        while (pos < source.length()) {
            char c = source.charAt(pos);
            if (c == '"') {
                pos++;
                flush(text, parts);
                if (parts.isEmpty()) {
                    return new Literal("");
                }
                return parts.size() == 1 && parts.get(0) instanceof String only ? new Literal(only) : new Interpolation(parts.toArray());
            }
            if (c == '$') {
                int open = placeholderBody(pos);
                if (open < 0) {
                    throw unsupported("$", pos);
                }
                flush(text, parts);
                pos = open;
                parts.add(parsePlaceholder());
            } else if (c == '\\') {
                text.append(escape(source.length()));
            } else {
                text.append(c);
                pos++;
            }
        }
        throw new InlineExpressionException("unterminated string", source, at);
    }

    private String identifier() {
        int start = pos;
        if (pos < source.length() && Character.isJavaIdentifierStart(source.charAt(pos)) && source.charAt(pos) != '$') {
            pos++;
            while (pos < source.length() && Character.isJavaIdentifierPart(source.charAt(pos)) && source.charAt(pos) != '$') {
                pos++;
            }
        }
        return source.substring(start, pos);
    }

    private void expect(char c) {
        skipWhitespace();
        if (pos >= source.length()) {
            throw new InlineExpressionException("unexpected end of expression, expected '" + c + "'", source, pos);
        }
        if (source.charAt(pos) != c) {
            throw unsupported(pos);
        }
        pos++;
    }

    private char peek() {
        return pos < source.length() ? source.charAt(pos) : 0;
    }

    private void skipWhitespace() {
        while (pos < source.length() && Character.isWhitespace(source.charAt(pos))) {
            pos++;
        }
    }

    private InlineExpressionException unsupported(int at) {
        if (at >= source.length()) {
            return new InlineExpressionException("unexpected end of expression", source, at);
        }
        return unsupported(String.valueOf(source.charAt(at)), at);
    }

    private InlineExpressionException unsupported(String token, int at) {
        return new InlineExpressionException("unsupported token '" + token + "'", source, at);
    }
}
