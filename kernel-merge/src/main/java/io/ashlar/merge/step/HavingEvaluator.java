package io.ashlar.merge.step;

import io.ashlar.merge.RowCursor;
import io.ashlar.merge.plan.CompareOperator;
import io.ashlar.merge.plan.HavingPredicate;
import io.ashlar.merge.plan.TextCollation;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.DateTimeText;
import io.ashlar.merge.value.FloatText;
import io.ashlar.merge.value.NumericText;
import io.ashlar.merge.value.TypeOids;
import io.ashlar.merge.value.ValueKind;
import io.ashlar.merge.value.ValueOrdering;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A {@link HavingPredicate} bound to the merged row's column types: each comparison gets the
 * comparison PostgreSQL's operator resolution would pick for its two types
 * (<a href="https://www.postgresql.org/docs/current/typeconv-oper.html">Operators</a>): the
 * type's own ordering when both sides share a type; numeric when integers meet numerics;
 * double precision when a float is involved (a {@code real} widened exactly); text, padding of
 * {@code character(n)} removed, when string types meet; timestamp when a date meets a timestamp.
 * Other mixes are refused when the cursor opens. Constants are checked then, too.
 */
final class HavingEvaluator {

    private static final int FALSE = 0;
    private static final int TRUE = 1;
    private static final int UNKNOWN = 2;

    private final Node root;

    private HavingEvaluator(Node root) {
        this.root = root;
    }

    static HavingEvaluator bind(HavingPredicate predicate, RowCursor input, ColumnCollations collations) {
        return new HavingEvaluator(node(predicate, input, collations));
    }

    /** Whether the row satisfies the predicate (true, not false or unknown). */
    boolean accepts(byte[][] row) {
        return root.evaluate(row) == TRUE;
    }

    private static Node node(HavingPredicate predicate, RowCursor input, ColumnCollations collations) {
        return switch (predicate) {
            case HavingPredicate.Comparison comparison -> comparison(comparison, input, collations);
            case HavingPredicate.NullTest test -> new NullTestNode(test.column(), test.negated());
            case HavingPredicate.And and -> new AndNode(nodes(and.operands(), input, collations));
            case HavingPredicate.Or or -> new OrNode(nodes(or.operands(), input, collations));
            case HavingPredicate.Not not -> new NotNode(node(not.operand(), input, collations));
        };
    }

    private static Node[] nodes(List<HavingPredicate> predicates, RowCursor input, ColumnCollations collations) {
        Node[] result = new Node[predicates.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = node(predicates.get(i), input, collations);
        }
        return result;
    }

    private static Node comparison(HavingPredicate.Comparison comparison, RowCursor input, ColumnCollations collations) {
        int leftType = type(comparison.left(), comparison.right(), input);
        int rightType = type(comparison.right(), comparison.left(), input);
        int collationColumn = comparison.left() instanceof HavingPredicate.Column column
                ? column.index() : ((HavingPredicate.Column) comparison.right()).index();
        TextCollation collation = collations.get(collationColumn);
        TypedComparator comparator = TypedComparator.of(leftType, rightType, collation);
        Operand left = operand(comparison.left(), collation.charset());
        Operand right = operand(comparison.right(), collation.charset());
        for (Operand each : new Operand[] {left, right}) {
            if (each.constant != null) {
                try {
                    int self = each == left ? leftType : rightType;
                    TypedComparator.of(self, self, TextCollation.C).compare(each.constant, each.constant);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("HAVING constant \"" + new String(each.constant, StandardCharsets.UTF_8)
                            + "\" is not a valid value of type OID " + (each == left ? leftType : rightType), e);
                }
            }
        }
        return new ComparisonNode(left, comparison.operator(), right, comparator);
    }

    private static int type(HavingPredicate.Operand operand, HavingPredicate.Operand other, RowCursor input) {
        return switch (operand) {
            case HavingPredicate.Column column -> input.typeOid(column.index());
            case HavingPredicate.Constant constant -> constant.typeOid() != 0
                    ? constant.typeOid() : input.typeOid(((HavingPredicate.Column) other).index());
        };
    }

    private static Operand operand(HavingPredicate.Operand operand, java.nio.charset.Charset text) {
        return switch (operand) {
            case HavingPredicate.Column column -> new Operand(column.index(), null);
            case HavingPredicate.Constant constant -> new Operand(-1, constant.text().getBytes(text));
        };
    }

    /** A column index, or a constant's bytes. */
    private record Operand(int column, byte[] constant) {

        byte[] value(byte[][] row) {
            return constant != null ? constant : row[column];
        }
    }

    private sealed interface Node permits ComparisonNode, NullTestNode, AndNode, OrNode, NotNode {
        int evaluate(byte[][] row);
    }

    private record ComparisonNode(Operand left, CompareOperator operator, Operand right, TypedComparator comparator)
            implements Node {
        @Override
        public int evaluate(byte[][] row) {
            byte[] a = left.value(row);
            byte[] b = right.value(row);
            if (a == null || b == null) {
                return UNKNOWN;
            }
            return operator.test(comparator.compare(a, b)) ? TRUE : FALSE;
        }
    }

    private record NullTestNode(int column, boolean negated) implements Node {
        @Override
        public int evaluate(byte[][] row) {
            return (row[column] == null) != negated ? TRUE : FALSE;
        }
    }

    private record AndNode(Node[] operands) implements Node {
        @Override
        public int evaluate(byte[][] row) {
            int result = TRUE;
            for (Node each : operands) {
                int value = each.evaluate(row);
                if (value == FALSE) {
                    return FALSE;
                }
                if (value == UNKNOWN) {
                    result = UNKNOWN;
                }
            }
            return result;
        }
    }

    private record OrNode(Node[] operands) implements Node {
        @Override
        public int evaluate(byte[][] row) {
            int result = FALSE;
            for (Node each : operands) {
                int value = each.evaluate(row);
                if (value == TRUE) {
                    return TRUE;
                }
                if (value == UNKNOWN) {
                    result = UNKNOWN;
                }
            }
            return result;
        }
    }

    private record NotNode(Node operand) implements Node {
        @Override
        public int evaluate(byte[][] row) {
            int value = operand.evaluate(row);
            return value == UNKNOWN ? UNKNOWN : value == TRUE ? FALSE : TRUE;
        }
    }

    /** A three-way comparison of two non-NULL values of possibly different types. */
    private static final class TypedComparator {

        private enum Mode {
            SAME,
            NUMERIC,
            DOUBLE,
            TEXT,
            TIMESTAMP
        }

        private final Mode mode;
        private final ValueOrdering ordering;
        private final TextCollation collation;
        private final int leftType;
        private final int rightType;

        private TypedComparator(Mode mode, ValueOrdering ordering, TextCollation collation, int leftType, int rightType) {
            this.mode = mode;
            this.ordering = ordering;
            this.collation = collation;
            this.leftType = leftType;
            this.rightType = rightType;
        }

        static TypedComparator of(int leftType, int rightType, TextCollation collation) {
            ValueKind left = ValueKind.of(leftType);
            ValueKind right = ValueKind.of(rightType);
            if (left.numeric() && right.numeric()) {
                if (left == ValueKind.FLOAT || right == ValueKind.FLOAT) {
                    return new TypedComparator(Mode.DOUBLE, null, collation, leftType, rightType);
                }
                if (left == ValueKind.INTEGER && right == ValueKind.INTEGER) {
                    return new TypedComparator(Mode.SAME, ValueOrdering.of(leftType), collation, leftType, rightType);
                }
                return new TypedComparator(Mode.NUMERIC, null, collation, leftType, rightType);
            }
            if (leftType == rightType || (left == right && left != ValueKind.BYTES)) {
                return new TypedComparator(Mode.SAME, ValueOrdering.of(leftType, collation), collation, leftType, rightType);
            }
            if (isText(left) && isText(right)) {
                return new TypedComparator(Mode.TEXT, null, collation, leftType, rightType);
            }
            if (isDateOrTimestamp(left) && isDateOrTimestamp(right)) {
                return new TypedComparator(Mode.TIMESTAMP, null, collation, leftType, rightType);
            }
            throw new IllegalArgumentException("HAVING cannot compare type OID " + leftType + " with type OID " + rightType
                    + " in the proxy");
        }

        int compare(byte[] a, byte[] b) {
            return switch (mode) {
                case SAME -> ordering.compare(a, b);
                case NUMERIC -> NumericText.compare(a, b);
                case DOUBLE -> Long.compare(FloatText.sortableBits(toDouble(a, leftType)),
                        FloatText.sortableBits(toDouble(b, rightType)));
                case TEXT -> collation.compare(a, textLength(a, leftType), b, textLength(b, rightType));
                case TIMESTAMP -> Long.compare(toMicros(a, leftType), toMicros(b, rightType));
            };
        }

        private static double toDouble(byte[] value, int type) {
            return type == TypeOids.FLOAT4 ? FloatText.parseFloat(value) : FloatText.parse(value);
        }

        private static int textLength(byte[] value, int type) {
            if (type != TypeOids.BPCHAR) {
                return value.length;
            }
            int length = value.length;
            while (length > 0 && value[length - 1] == ' ') {
                length--;
            }
            return length;
        }

        private static long toMicros(byte[] value, int type) {
            return type == TypeOids.DATE
                    ? DateTimeText.daysToMicros(DateTimeText.parseDate(value))
                    : DateTimeText.parseTimestamp(value);
        }

        private static boolean isText(ValueKind kind) {
            return kind == ValueKind.TEXT || kind == ValueKind.BPCHAR;
        }

        private static boolean isDateOrTimestamp(ValueKind kind) {
            return kind == ValueKind.DATE || kind == ValueKind.TIMESTAMP;
        }
    }
}
