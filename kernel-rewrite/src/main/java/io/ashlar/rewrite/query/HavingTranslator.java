package io.ashlar.rewrite.query;

import io.ashlar.merge.plan.CompareOperator;
import io.ashlar.merge.plan.HavingPredicate;
import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.route.RouteException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a HAVING condition into kernel-merge's {@link HavingPredicate}, which the proxy evaluates
 * over the merged groups (a shard sees only part of each group, so the condition cannot stay in
 * the shard SQL). Understood: AND, OR, NOT, parentheses, the six comparisons, BETWEEN, IN with a
 * list, IS [NOT] NULL; operands are aggregate calls, expressions of the group keys, and constants
 * (numbers, strings, booleans, casts of those, parameters). Anything else is refused with 0A000,
 * so that a HAVING the proxy cannot evaluate exactly never gives a wrong answer.
 *
 * <p>Column indexes in the result are symbolic ({@link MergeSpec#DERIVED} for derived columns);
 * a parameter constant is {@code Constant("$n[::oid]", PARAMETER_TYPE)}, bound per execution.
 */
final class HavingTranslator {

    /** Type OID marking a {@link HavingPredicate.Constant} whose text names a parameter. */
    static final int PARAMETER_TYPE = -1;

    private static final Map<String, Integer> TYPES = Map.ofEntries(
            Map.entry("smallint", 21), Map.entry("int2", 21), Map.entry("integer", 23), Map.entry("int", 23),
            Map.entry("int4", 23), Map.entry("bigint", 20), Map.entry("int8", 20), Map.entry("numeric", 1700),
            Map.entry("decimal", 1700), Map.entry("real", 700), Map.entry("float4", 700),
            Map.entry("double precision", 701), Map.entry("float8", 701), Map.entry("float", 701),
            Map.entry("text", 25), Map.entry("varchar", 1043), Map.entry("character varying", 1043),
            Map.entry("bpchar", 1042), Map.entry("char", 1042), Map.entry("character", 1042),
            Map.entry("date", 1082), Map.entry("time", 1083), Map.entry("timestamp", 1114),
            Map.entry("timestamp without time zone", 1114), Map.entry("timestamptz", 1184),
            Map.entry("timestamp with time zone", 1184), Map.entry("interval", 1186), Map.entry("boolean", 16),
            Map.entry("bool", 16), Map.entry("uuid", 2950));

    /** Gives the (symbolic) merged-row column of an operand expression, deriving one if needed. */
    interface OperandColumns {
        int column(int from, int to);
    }

    private final SqlTokens tokens;
    private final TokenList list;
    private final OperandColumns columns;
    private final String table;
    private final int end;
    private int position;
    private boolean parameters;

    private HavingTranslator(SqlTokens tokens, int start, int end, OperandColumns columns, String table) {
        this.tokens = tokens;
        this.list = tokens.list();
        this.columns = columns;
        this.table = table;
        this.position = start;
        this.end = end;
    }

    /** The predicate of a translated HAVING and whether it reads parameters. */
    record Result(HavingPredicate predicate, boolean parameters) {
    }

    static Result translate(SqlTokens tokens, SourceRange condition, OperandColumns columns, String table) {
        HavingTranslator translator = new HavingTranslator(tokens, tokens.firstAtOrAfter(condition.start()),
                tokens.endBefore(condition.end()), columns, table);
        HavingPredicate result = translator.or();
        if (translator.position != translator.end) {
            throw translator.unsupported();
        }
        return new Result(result, translator.parameters);
    }

    private HavingPredicate or() {
        List<HavingPredicate> operands = new ArrayList<>(2);
        operands.add(and());
        while (list.isKeyword(position, Keyword.OR) && position < end) {
            position++;
            operands.add(and());
        }
        return operands.size() == 1 ? operands.get(0) : new HavingPredicate.Or(operands);
    }

    private HavingPredicate and() {
        List<HavingPredicate> operands = new ArrayList<>(2);
        operands.add(not());
        while (list.isKeyword(position, Keyword.AND) && position < end) {
            position++;
            operands.add(not());
        }
        return operands.size() == 1 ? operands.get(0) : new HavingPredicate.And(operands);
    }

    private HavingPredicate not() {
        if (list.isKeyword(position, Keyword.NOT) && position < end) {
            position++;
            return new HavingPredicate.Not(not());
        }
        if (list.is(position, TokenKind.LEFT_PAREN) && position < end) {
            int close = tokens.closing(position, end);
            if (close < 0) {
                throw unsupported();
            }
            if (!startsComparison(close + 1)) {
                position++;
                HavingPredicate inner = or();
                if (position != close) {
                    throw unsupported();
                }
                position++;
                return inner;
            }
        }
        return comparison();
    }

    private boolean startsComparison(int i) {
        return i < end && (operator(i) != null || list.isKeyword(i, Keyword.IS) || list.isKeyword(i, Keyword.BETWEEN)
                || list.isKeyword(i, Keyword.IN) || list.isKeyword(i, Keyword.NOT));
    }

    private HavingPredicate comparison() {
        int leftStart = position;
        int leftEnd = operandEnd();
        if (list.isKeyword(position, Keyword.IS) && position < end) {
            position++;
            boolean negated = list.isKeyword(position, Keyword.NOT);
            if (negated) {
                position++;
            }
            if (!list.isKeyword(position, Keyword.NULL) || position >= end) {
                throw unsupported();
            }
            position++;
            HavingPredicate.Operand operand = operand(leftStart, leftEnd);
            if (!(operand instanceof HavingPredicate.Column column)) {
                throw unsupported();
            }
            return new HavingPredicate.NullTest(column.index(), negated);
        }
        boolean negated = list.isKeyword(position, Keyword.NOT) && position < end;
        if (negated) {
            position++;
        }
        if (list.isKeyword(position, Keyword.BETWEEN) && position < end) {
            position++;
            HavingPredicate.Operand value = operand(leftStart, leftEnd);
            int lowStart = position;
            HavingPredicate.Operand low = operand(lowStart, operandEnd());
            if (!list.isKeyword(position, Keyword.AND)) {
                throw unsupported();
            }
            position++;
            int highStart = position;
            HavingPredicate.Operand high = operand(highStart, operandEnd());
            HavingPredicate between = new HavingPredicate.And(List.of(compare(value, CompareOperator.GE, low),
                    compare(value, CompareOperator.LE, high)));
            return negated ? new HavingPredicate.Not(between) : between;
        }
        if (list.isKeyword(position, Keyword.IN) && position < end) {
            position++;
            if (!list.is(position, TokenKind.LEFT_PAREN) || list.isKeyword(position + 1, Keyword.SELECT)) {
                throw unsupported();
            }
            int close = tokens.closing(position, end);
            if (close < 0) {
                throw unsupported();
            }
            position++;
            HavingPredicate.Operand value = operand(leftStart, leftEnd);
            List<HavingPredicate> alternatives = new ArrayList<>();
            while (true) {
                int itemStart = position;
                alternatives.add(compare(value, CompareOperator.EQ, operand(itemStart, operandEnd())));
                if (list.is(position, TokenKind.COMMA) && position < close) {
                    position++;
                } else {
                    break;
                }
            }
            if (position != close) {
                throw unsupported();
            }
            position++;
            HavingPredicate in = alternatives.size() == 1 ? alternatives.get(0) : new HavingPredicate.Or(alternatives);
            return negated ? new HavingPredicate.Not(in) : in;
        }
        if (negated) {
            throw unsupported();
        }
        CompareOperator operator = operator(position);
        if (operator == null || position >= end) {
            throw unsupported();
        }
        position++;
        HavingPredicate.Operand left = operand(leftStart, leftEnd);
        int rightStart = position;
        HavingPredicate.Operand right = operand(rightStart, operandEnd());
        return compare(left, operator, right);
    }

    private HavingPredicate compare(HavingPredicate.Operand left, CompareOperator operator, HavingPredicate.Operand right) {
        if (!(left instanceof HavingPredicate.Column) && !(right instanceof HavingPredicate.Column)) {
            throw unsupported();
        }
        return new HavingPredicate.Comparison(left, operator, right);
    }

    private CompareOperator operator(int i) {
        if (!list.is(i, TokenKind.OPERATOR)) {
            return null;
        }
        return switch (list.text(i)) {
            case "=" -> CompareOperator.EQ;
            case "<>", "!=" -> CompareOperator.NE;
            case "<" -> CompareOperator.LT;
            case "<=" -> CompareOperator.LE;
            case ">" -> CompareOperator.GT;
            case ">=" -> CompareOperator.GE;
            default -> null;
        };
    }

    /**
     * Advances over one operand: tokens up to a comparison, a boolean keyword, a comma or a closing
     * parenthesis at depth 0. Returns the index past it; the operand must not be empty.
     */
    private int operandEnd() {
        int start = position;
        int depth = 0;
        while (position < end) {
            TokenKind kind = list.kind(position);
            if (kind == TokenKind.LEFT_PAREN || kind == TokenKind.LEFT_BRACKET) {
                depth++;
            } else if (kind == TokenKind.RIGHT_PAREN || kind == TokenKind.RIGHT_BRACKET) {
                if (depth == 0) {
                    break;
                }
                depth--;
            } else if (depth == 0 && (kind == TokenKind.COMMA || operator(position) != null
                    || list.isKeyword(position, Keyword.AND) || list.isKeyword(position, Keyword.OR)
                    || list.isKeyword(position, Keyword.IS) || list.isKeyword(position, Keyword.NOT)
                    || list.isKeyword(position, Keyword.BETWEEN) || list.isKeyword(position, Keyword.IN)
                    || list.isKeyword(position, Keyword.LIKE) || list.isKeyword(position, Keyword.ILIKE)
                    || list.isKeyword(position, Keyword.SIMILAR))) {
                break;
            }
            position++;
        }
        if (position == start) {
            throw unsupported();
        }
        return position;
    }

    private HavingPredicate.Operand operand(int first, int last) {
        HavingPredicate.Constant constant = constant(first, last);
        if (constant != null) {
            return constant;
        }
        return new HavingPredicate.Column(columns.column(list.start(first), list.end(last - 1)));
    }

    /** The constant spelled by tokens {@code [first, last)}, or null when they are not one. */
    private HavingPredicate.Constant constant(int first, int last) {
        int i = first;
        String sign = "";
        if ((list.isOperator(i, "-") || list.isOperator(i, "+")) && i + 1 < last && list.kind(i + 1).isNumber()) {
            sign = list.isOperator(i, "-") ? "-" : "";
            i++;
        }
        String text;
        int type;
        TokenKind kind = list.kind(i);
        if (kind == TokenKind.INTEGER) {
            String digits = list.text(i).replace("_", "");
            for (int k = 0; k < digits.length(); k++) {
                if (!Character.isDigit(digits.charAt(k))) {
                    throw unsupported();
                }
            }
            text = sign + digits;
            type = integerType(text);
        } else if (kind == TokenKind.DECIMAL) {
            text = sign + list.text(i).replace("_", "");
            type = 1700;
        } else if (!sign.isEmpty()) {
            return null;
        } else if (kind.isCharacterString()) {
            text = list.stringValue(i);
            type = 0;
        } else if (list.isKeyword(i, Keyword.TRUE) || list.isKeyword(i, Keyword.FALSE)) {
            text = list.isKeyword(i, Keyword.TRUE) ? "true" : "false";
            type = 16;
        } else if (kind.isParameter()) {
            parameters = true;
            text = "$" + list.parameterNumber(i);
            type = PARAMETER_TYPE;
        } else if (list.isKeyword(i, Keyword.NULL)) {
            throw new RouteException("0A000", "HAVING comparing with NULL on sharded table " + table
                    + " over several shards is not supported; use IS NULL");
        } else {
            return null;
        }
        i++;
        if (i == last) {
            return new HavingPredicate.Constant(text, type);
        }
        if (!list.is(i, TokenKind.TYPECAST)) {
            return null;
        }
        String typeName = castType(i + 1, last);
        Integer oid = TYPES.get(typeName);
        if (oid == null) {
            throw unsupported();
        }
        return type == PARAMETER_TYPE ? new HavingPredicate.Constant(text + "::" + oid, PARAMETER_TYPE)
                : new HavingPredicate.Constant(text, oid);
    }

    private String castType(int first, int last) {
        StringBuilder result = new StringBuilder();
        for (int i = first; i < last; i++) {
            if (list.is(i, TokenKind.LEFT_PAREN)) {
                int close = tokens.closing(i, last);
                if (close != last - 1) {
                    throw unsupported();
                }
                break;
            }
            if (!list.is(i, TokenKind.IDENTIFIER)) {
                throw unsupported();
            }
            if (!result.isEmpty()) {
                result.append(' ');
            }
            result.append(list.text(i).toLowerCase(Locale.ROOT));
        }
        return result.toString();
    }

    /** PostgreSQL's type for an integer literal: int4 when it fits, else int8, else numeric. */
    static int integerType(String text) {
        try {
            long value = Long.parseLong(text);
            return value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE ? 23 : 20;
        } catch (NumberFormatException e) {
            return 1700;
        }
    }

    private RouteException unsupported() {
        String sql = tokens.sql();
        int index = Math.min(position, list.size() - 1);
        int from = index >= 0 ? list.start(index) : 0;
        return new RouteException("0A000", "HAVING condition near \"" + excerpt(sql, from) + "\" on sharded table "
                + table + " over several shards is not supported: the proxy evaluates HAVING itself and understands"
                + " AND, OR, NOT, comparisons, BETWEEN, IN lists and IS NULL of aggregates, group keys and constants");
    }

    private static String excerpt(String sql, int from) {
        int to = Math.min(sql.length(), from + 30);
        return sql.substring(Math.min(from, to), to);
    }
}
