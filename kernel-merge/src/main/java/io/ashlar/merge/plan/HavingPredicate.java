package io.ashlar.merge.plan;

import java.util.List;
import java.util.Objects;

/**
 * The HAVING condition, evaluated by the proxy over merged groups because a shard only sees part
 * of each group. A tiny model: comparisons between columns and constants, NULL tests and the
 * boolean connectives, with SQL's three-valued logic (a comparison with NULL is unknown, and a
 * group passes only when the condition is true), as
 * <a href="https://www.postgresql.org/docs/current/sql-select.html#SQL-HAVING">HAVING Clause</a>
 * and <a href="https://www.postgresql.org/docs/current/functions-logical.html">Logical Operators</a>
 * describe. Columns index the merged row, derived columns included (a HAVING aggregate the client
 * did not select is appended by the rewriter).
 */
public sealed interface HavingPredicate {

    /** Prints the predicate for EXPLAIN. */
    String describe();

    /** One side of a comparison. */
    sealed interface Operand {
        String describe();
    }

    /** A column of the merged row. */
    record Column(int index) implements Operand {
        public Column {
            if (index < 0) {
                throw new IllegalArgumentException("column must be >= 0: " + index);
            }
        }

        @Override
        public String describe() {
            return "#" + index;
        }
    }

    /**
     * A constant in PostgreSQL text form.
     *
     * @param text the literal's text ({@code 10}, {@code 2.5}, {@code abc})
     * @param typeOid the literal's type, or 0 for an untyped string literal, which takes the type
     *                of the column it is compared with (as PostgreSQL resolves {@code unknown})
     */
    record Constant(String text, int typeOid) implements Operand {
        public Constant {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public String describe() {
            return "'" + text + "'" + (typeOid == 0 ? "" : "::" + typeOid);
        }
    }

    /** {@code left op right}, compared by the operands' types. */
    record Comparison(Operand left, CompareOperator operator, Operand right) implements HavingPredicate {
        public Comparison {
            Objects.requireNonNull(left, "left");
            Objects.requireNonNull(operator, "operator");
            Objects.requireNonNull(right, "right");
            if (!(left instanceof Column) && !(right instanceof Column)) {
                throw new IllegalArgumentException("a comparison needs at least one column");
            }
        }

        @Override
        public String describe() {
            return left.describe() + " " + operator.symbol() + " " + right.describe();
        }
    }

    /** {@code column IS NULL} or, when {@code negated}, {@code column IS NOT NULL}. */
    record NullTest(int column, boolean negated) implements HavingPredicate {
        public NullTest {
            if (column < 0) {
                throw new IllegalArgumentException("column must be >= 0: " + column);
            }
        }

        @Override
        public String describe() {
            return "#" + column + (negated ? " IS NOT NULL" : " IS NULL");
        }
    }

    /** Conjunction of at least two conditions. */
    record And(List<HavingPredicate> operands) implements HavingPredicate {
        public And {
            operands = List.copyOf(operands);
            if (operands.size() < 2) {
                throw new IllegalArgumentException("AND needs two operands or more");
            }
        }

        @Override
        public String describe() {
            return join(operands, " AND ");
        }
    }

    /** Disjunction of at least two conditions. */
    record Or(List<HavingPredicate> operands) implements HavingPredicate {
        public Or {
            operands = List.copyOf(operands);
            if (operands.size() < 2) {
                throw new IllegalArgumentException("OR needs two operands or more");
            }
        }

        @Override
        public String describe() {
            return join(operands, " OR ");
        }
    }

    /** Negation. */
    record Not(HavingPredicate operand) implements HavingPredicate {
        public Not {
            Objects.requireNonNull(operand, "operand");
        }

        @Override
        public String describe() {
            return "NOT (" + operand.describe() + ")";
        }
    }

    /** {@code #column op constant}. */
    static HavingPredicate compare(int column, CompareOperator operator, String constant, int constantTypeOid) {
        return new Comparison(new Column(column), operator, new Constant(constant, constantTypeOid));
    }

    /** {@code #left op #right}. */
    static HavingPredicate compareColumns(int left, CompareOperator operator, int right) {
        return new Comparison(new Column(left), operator, new Column(right));
    }

    private static String join(List<HavingPredicate> operands, String separator) {
        StringBuilder result = new StringBuilder("(");
        for (int i = 0; i < operands.size(); i++) {
            if (i > 0) {
                result.append(separator);
            }
            result.append(operands.get(i).describe());
        }
        return result.append(')').toString();
    }
}
