package io.ashlar.merge.value;

import io.ashlar.merge.plan.TextCollation;

import java.util.Arrays;
import java.util.Map;

/**
 * The {@link TextCollation} of every shard column, looked up by index: the plan's map turned
 * into an array once, at compile time. Immutable.
 */
public final class ColumnCollations {

    private final TextCollation[] byColumn;

    private ColumnCollations(TextCollation[] byColumn) {
        this.byColumn = byColumn;
    }

    /** Collations for {@code columnCount} columns; unlisted columns use {@link TextCollation#C}. */
    public static ColumnCollations of(Map<Integer, TextCollation> collations, int columnCount) {
        TextCollation[] result = new TextCollation[columnCount];
        Arrays.fill(result, TextCollation.C);
        collations.forEach((column, collation) -> result[column] = collation);
        return new ColumnCollations(result);
    }

    /** The collation of a column; {@link TextCollation#C} beyond the known columns. */
    public TextCollation get(int column) {
        return column < byColumn.length ? byColumn[column] : TextCollation.C;
    }

    /** The ordering of a column of the given type under its collation. */
    public ValueOrdering ordering(int column, int typeOid) {
        return ValueOrdering.of(typeOid, get(column));
    }
}
