package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.statement.ColumnEquality;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.ConditionOperator;
import io.ashlar.parser.statement.Conjunction;
import io.ashlar.parser.statement.ShardingCondition;
import io.ashlar.parser.statement.ShardingConditions;
import io.ashlar.parser.statement.SqlValue;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a boolean expression (WHERE, JOIN ... ON) into a tree of what a router can use, then
 * normalises it to the OR-of-ANDs of {@link ShardingConditions}. Precedence follows PostgreSQL: OR
 * binds loosest, then AND, then NOT; the AND of {@code BETWEEN a AND b} and everything inside
 * CASE ... END or brackets belong to their own construct.
 */
final class ConditionParser {
    /** A node of the condition tree. */
    sealed interface Node permits Leaf, Equality, Unknown, And, Or {
    }

    /** A usable comparison. */
    record Leaf(ShardingCondition condition) implements Node {
    }

    /** {@code a.x = b.y}. */
    record Equality(ColumnEquality equality) implements Node {
    }

    /** Anything else: restricts nothing. */
    record Unknown() implements Node {
    }

    record And(List<Node> children) implements Node {
    }

    record Or(List<Node> children) implements Node {
    }

    private static final Unknown UNKNOWN = new Unknown();

    private final ParseContext c;

    ConditionParser(ParseContext context) {
        this.c = context;
    }

    /** The condition tree of tokens {@code [from, to)}. */
    Node parse(int from, int to) {
        List<int[]> parts = split(from, to, Keyword.OR);
        if (parts.size() == 1) {
            return conjunction(from, to);
        }
        List<Node> children = new ArrayList<>(parts.size());
        for (int[] part : parts) {
            children.add(conjunction(part[0], part[1]));
        }
        return new Or(children);
    }

    private Node conjunction(int from, int to) {
        List<int[]> parts = split(from, to, Keyword.AND);
        if (parts.size() == 1) {
            return factor(from, to);
        }
        List<Node> children = new ArrayList<>(parts.size());
        for (int[] part : parts) {
            children.add(factor(part[0], part[1]));
        }
        return new And(children);
    }

    /**
     * Splits {@code [from, to)} at the depth-0 occurrences of {@code separator} (AND or OR), leaving
     * alone those inside brackets, CASE ... END, and the AND that belongs to a BETWEEN.
     */
    private List<int[]> split(int from, int to, Keyword separator) {
        List<int[]> result = new ArrayList<>(2);
        int start = from;
        int cases = 0;
        int betweens = 0;
        int i = from;
        while (i < to) {
            Keyword keyword = c.tokens.keyword(i);
            if (keyword == Keyword.CASE) {
                cases++;
            } else if (keyword == Keyword.END && cases > 0) {
                cases--;
            } else if (cases == 0) {
                if (keyword == Keyword.BETWEEN) {
                    betweens++;
                } else if (keyword == Keyword.AND && betweens > 0) {
                    betweens--;
                } else if (keyword == separator) {
                    result.add(new int[] {start, i});
                    start = i + 1;
                }
            }
            i = c.skip(i, to);
        }
        result.add(new int[] {start, to});
        return result;
    }

    private Node factor(int from, int to) {
        if (from >= to || c.kw(from, Keyword.NOT)) {
            return UNKNOWN;
        }
        if (c.is(from, TokenKind.LEFT_PAREN) && c.close(from) == to - 1 && !c.startsQuery(from + 1)) {
            return parse(from + 1, to - 1);
        }
        return predicate(from, to);
    }

    private Node predicate(int from, int to) {
        int in = -1;
        int between = -1;
        int comparison = -1;
        for (int i = from; i < to; i = c.skip(i, to)) {
            Keyword keyword = c.tokens.keyword(i);
            if (keyword == Keyword.IN && in < 0) {
                in = i;
            } else if (keyword == Keyword.BETWEEN && between < 0) {
                between = i;
            } else if (comparison < 0 && c.tokens.is(i, TokenKind.OPERATOR) && comparisonOperator(i) != null) {
                comparison = i;
            } else if (keyword == Keyword.CASE) {
                return UNKNOWN;
            }
        }
        if (in >= 0 && between < 0 && comparison < 0) {
            return in(from, in, to);
        }
        if (between >= 0 && in < 0) {
            return between(from, between, to);
        }
        if (comparison >= 0 && in < 0 && between < 0) {
            return comparison(from, comparison, to);
        }
        return UNKNOWN;
    }

    private Node in(int from, int in, int to) {
        if (c.kw(in - 1, Keyword.NOT) || !c.is(in + 1, TokenKind.LEFT_PAREN) || c.close(in + 1) != to - 1
                || c.startsQuery(in + 2)) {
            return UNKNOWN;
        }
        ColumnReference column = c.values.column(from, in);
        if (column == null) {
            return UNKNOWN;
        }
        List<int[]> items = c.splitCommas(in + 2, to - 1);
        if (items.isEmpty()) {
            return UNKNOWN;
        }
        List<SqlValue> values = new ArrayList<>(items.size());
        for (int[] item : items) {
            SqlValue value = c.values.value(item[0], item[1]);
            if (value == null) {
                return UNKNOWN;
            }
            values.add(value);
        }
        return new Leaf(new ShardingCondition(column, ConditionOperator.IN, values));
    }

    private Node between(int from, int between, int to) {
        if (c.kw(between - 1, Keyword.NOT) || c.kw(between + 1, Keyword.SYMMETRIC)) {
            return UNKNOWN;
        }
        int low = c.kw(between + 1, Keyword.ASYMMETRIC) ? between + 2 : between + 1;
        int and = c.find(low, to, Keyword.AND);
        ColumnReference column = c.values.column(from, between);
        if (and < 0 || column == null) {
            return UNKNOWN;
        }
        SqlValue lower = c.values.value(low, and);
        SqlValue upper = c.values.value(and + 1, to);
        if (lower == null || upper == null) {
            return UNKNOWN;
        }
        return new Leaf(new ShardingCondition(column, ConditionOperator.BETWEEN, List.of(lower, upper)));
    }

    private Node comparison(int from, int operator, int to) {
        ConditionOperator kind = comparisonOperator(operator);
        ColumnReference leftColumn = c.values.column(from, operator);
        ColumnReference rightColumn = c.values.column(operator + 1, to);
        if (leftColumn != null && rightColumn != null) {
            return kind == ConditionOperator.EQUAL
                    ? new Equality(new ColumnEquality(leftColumn, rightColumn)) : UNKNOWN;
        }
        if (leftColumn != null) {
            SqlValue value = c.values.value(operator + 1, to);
            return value == null ? UNKNOWN : new Leaf(new ShardingCondition(leftColumn, kind, List.of(value)));
        }
        if (rightColumn != null) {
            SqlValue value = c.values.value(from, operator);
            return value == null ? UNKNOWN : new Leaf(new ShardingCondition(rightColumn, flip(kind), List.of(value)));
        }
        return UNKNOWN;
    }

    /** The condition operator of a usable comparison operator token, or null ({@code <>}, {@code !=}, others). */
    private ConditionOperator comparisonOperator(int i) {
        if (c.tokens.textEquals(i, "=")) {
            return ConditionOperator.EQUAL;
        }
        if (c.tokens.textEquals(i, "<")) {
            return ConditionOperator.LESS_THAN;
        }
        if (c.tokens.textEquals(i, "<=")) {
            return ConditionOperator.LESS_THAN_OR_EQUAL;
        }
        if (c.tokens.textEquals(i, ">")) {
            return ConditionOperator.GREATER_THAN;
        }
        if (c.tokens.textEquals(i, ">=")) {
            return ConditionOperator.GREATER_THAN_OR_EQUAL;
        }
        return null;
    }

    private static ConditionOperator flip(ConditionOperator operator) {
        return switch (operator) {
            case LESS_THAN -> ConditionOperator.GREATER_THAN;
            case LESS_THAN_OR_EQUAL -> ConditionOperator.GREATER_THAN_OR_EQUAL;
            case GREATER_THAN -> ConditionOperator.LESS_THAN;
            case GREATER_THAN_OR_EQUAL -> ConditionOperator.LESS_THAN_OR_EQUAL;
            default -> operator;
        };
    }

    // ---- normal form

    /** The AND of {@code nodes} as an OR of ANDs, capped at {@link ShardingConditions#MAX_CONJUNCTIONS}. */
    static ShardingConditions toConditions(List<Node> nodes) {
        if (nodes.isEmpty()) {
            return ShardingConditions.UNRESTRICTED;
        }
        List<List<ShardingCondition>> dnf = dnf(nodes.size() == 1 ? nodes.get(0) : new And(nodes));
        if (dnf == null) {
            return ShardingConditions.UNRESTRICTED;
        }
        List<Conjunction> disjuncts = new ArrayList<>(dnf.size());
        for (List<ShardingCondition> conjunction : dnf) {
            disjuncts.add(conjunction.isEmpty() ? Conjunction.UNRESTRICTED : new Conjunction(conjunction));
        }
        return new ShardingConditions(disjuncts);
    }

    /** DNF of a node; null means unrestricted (an empty conjunction absorbs every other disjunct). */
    private static List<List<ShardingCondition>> dnf(Node node) {
        return switch (node) {
            case Leaf leaf -> {
                List<List<ShardingCondition>> result = new ArrayList<>(1);
                List<ShardingCondition> conjunction = new ArrayList<>(1);
                conjunction.add(leaf.condition());
                result.add(conjunction);
                yield result;
            }
            case Equality ignored -> null;
            case Unknown ignored -> null;
            case Or or -> {
                List<List<ShardingCondition>> result = new ArrayList<>();
                for (Node child : or.children()) {
                    List<List<ShardingCondition>> part = dnf(child);
                    if (part == null) {
                        yield null;
                    }
                    result.addAll(part);
                    if (result.size() > ShardingConditions.MAX_CONJUNCTIONS) {
                        yield null;
                    }
                }
                yield result;
            }
            case And and -> {
                List<List<ShardingCondition>> result = null;
                for (Node child : and.children()) {
                    List<List<ShardingCondition>> part = dnf(child);
                    if (part == null) {
                        continue;
                    }
                    if (result == null) {
                        result = part;
                        continue;
                    }
                    if ((long) result.size() * part.size() > ShardingConditions.MAX_CONJUNCTIONS) {
                        // Dropping a conjunct only widens the route; keep the smaller side.
                        if (part.size() < result.size()) {
                            result = part;
                        }
                        continue;
                    }
                    List<List<ShardingCondition>> product = new ArrayList<>(result.size() * part.size());
                    for (List<ShardingCondition> left : result) {
                        for (List<ShardingCondition> right : part) {
                            List<ShardingCondition> combined = new ArrayList<>(left.size() + right.size());
                            combined.addAll(left);
                            combined.addAll(right);
                            product.add(combined);
                        }
                    }
                    result = product;
                }
                yield result;
            }
        };
    }

    /** Adds the column equalities that hold for every row: those reached from the root through ANDs only. */
    static void collectEqualities(Node node, List<ColumnEquality> result) {
        if (node instanceof Equality equality) {
            result.add(equality.equality());
        } else if (node instanceof And and) {
            for (Node child : and.children()) {
                collectEqualities(child, result);
            }
        }
    }
}
