package io.ashlar.rewrite.template;

/**
 * One piece of a compiled {@link SqlTemplate}: text copied from the user's SQL or added by the
 * rewriter, or a spot whose text depends on the route unit (a table or index name, the unit's
 * INSERT rows, a generated key) or on the parameter numbering of the unit.
 */
public sealed interface Piece {

    /** Fixed text. */
    record Text(String text) implements Piece {
    }

    /**
     * A table name token: the unit's actual table for {@code logicTable}, or {@code original} where
     * the unit does not rename it.
     *
     * @param logicTable normalised logic table name
     * @param quoted     whether the user quoted it, so that the actual name is quoted too
     * @param original   the token as the user wrote it
     * @param keepsName  a whole-row value that is a select-list item of its own: renamed, it is given
     *                   {@code original} back as its column's name ({@code t_order_0 AS t_order})
     */
    record Table(String logicTable, boolean quoted, String original, boolean keepsName) implements Piece {
    }

    /**
     * An index or constraint name of DDL: {@code name_<actual table>} on a unit that renames the
     * table it belongs to (ShardingSphere's {@code IndexToken} / {@code ConstraintToken} rule).
     *
     * @param name       the normalised index name
     * @param logicTable the table it belongs to; empty when the statement does not say (DROP INDEX),
     *                   then the unit's first renamed table
     * @param quoted     whether the user quoted it
     * @param original   the token as the user wrote it
     */
    record Index(String name, String logicTable, boolean quoted, String original) implements Piece {
    }

    /**
     * A parameter marker, renumbered or recorded as the unit's numbering needs.
     *
     * @param number the client's parameter number, 1-based
     * @param jdbc   whether it is a {@code ?} marker
     */
    record Marker(int number, boolean jdbc) implements Piece {
    }

    /**
     * The VALUES rows of a multi-row INSERT: the unit keeps the rows routed to it.
     *
     * @param rows       each row's pieces
     * @param separators {@code separators[i]}: the text between row {@code i - 1} and row {@code i}
     *                   ({@code separators[0]} is empty)
     */
    record Rows(Piece[][] rows, String[] separators) implements Piece {
    }

    /** {@code , key_column} at the end of the INSERT column list when the route generated keys. */
    record KeyColumn() implements Piece {
    }

    /** {@code , key} before the closing parenthesis of VALUES row {@code row} when the route generated keys. */
    record KeyValue(int row) implements Piece {
    }
}
