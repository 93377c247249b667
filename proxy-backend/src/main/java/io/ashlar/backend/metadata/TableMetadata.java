package io.ashlar.backend.metadata;

import java.util.List;

/**
 * The definition of one table: what a {@code CREATE TABLE} and the statements after it need to make an
 * equal table, in the form PostgreSQL's catalog functions print it. For an actual table of a logical table the
 * names are the logical ones (its constraints, indexes, sequences and the tables its foreign keys reference), so
 * that the actual tables of one logical table compare equal when they agree.
 *
 * @param schema      the schema
 * @param name        the table name
 * @param unlogged    whether UNLOGGED
 * @param columns     the columns in order (dropped ones left out)
 * @param constraints the constraints, by name
 * @param indexes     the indexes no constraint owns, by name
 * @param sequences   the sequences its columns own, by name
 * @param comment     the table's comment, empty for none
 */
public record TableMetadata(String schema, String name, boolean unlogged, List<ColumnMetadata> columns,
                            List<ConstraintMetadata> constraints, List<IndexMetadata> indexes,
                            List<SequenceMetadata> sequences, String comment) {

    public TableMetadata {
        columns = List.copyOf(columns);
        constraints = List.copyOf(constraints);
        indexes = List.copyOf(indexes);
        sequences = List.copyOf(sequences);
    }

    /** {@code schema.name}, the key of the table in a schema snapshot. */
    public String qualifiedName() {
        return schema + "." + name;
    }

    /** The column names, in order. */
    public List<String> columnNames() {
        String[] result = new String[columns.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = columns.get(i).name();
        }
        return List.of(result);
    }

    /**
     * How {@code other} (an actual table of the same logical table) differs from this one, in words, or empty when
     * they agree; the first difference of each kind.
     */
    public String difference(TableMetadata other) {
        StringBuilder result = new StringBuilder();
        if (!columnNames().equals(other.columnNames())) {
            append(result, "columns (" + String.join(", ", other.columnNames()) + ") instead of ("
                    + String.join(", ", columnNames()) + ")");
        } else {
            for (int i = 0; i < columns.size(); i++) {
                ColumnMetadata mine = columns.get(i);
                ColumnMetadata theirs = other.columns.get(i);
                if (!mine.equals(theirs)) {
                    append(result, "column " + mine.name() + " " + describe(theirs) + " instead of " + describe(mine));
                }
            }
        }
        if (unlogged != other.unlogged) {
            append(result, other.unlogged ? "UNLOGGED" : "not UNLOGGED");
        }
        differenceByName(result, "constraint", constraints, other.constraints);
        differenceByName(result, "index", indexes, other.indexes);
        differenceByName(result, "sequence", sequences, other.sequences);
        return result.toString();
    }

    private static void differenceByName(StringBuilder result, String what, List<? extends Record> mine, List<? extends Record> theirs) {
        for (Record each : theirs) {
            if (!mine.contains(each)) {
                append(result, what + " " + describe(each) + " that the first has not");
            }
        }
        for (Record each : mine) {
            if (!theirs.contains(each)) {
                append(result, "no " + what + " " + describe(each));
            }
        }
    }

    private static String describe(Record each) {
        return switch (each) {
            case ConstraintMetadata c -> c.name() + " " + c.definition();
            case IndexMetadata i -> i.definition();
            case SequenceMetadata s -> s.name() + " (" + s.column() + ") " + s.options();
            case ColumnMetadata c -> c.type() + (c.collation().isEmpty() ? "" : " COLLATE " + c.collation())
                    + (c.notNull() ? " NOT NULL" : " NULL")
                    + (c.defaultExpression().isEmpty() ? "" : " DEFAULT " + c.defaultExpression())
                    + (c.identity().isEmpty() ? "" : " IDENTITY " + c.identity())
                    + (c.generated().isEmpty() ? "" : " GENERATED " + c.generated())
                    + (c.comment().isEmpty() ? "" : " COMMENT '" + c.comment() + "'");
            default -> each.toString();
        };
    }

    private static void append(StringBuilder result, String difference) {
        result.append(result.isEmpty() ? "" : "; ").append(difference);
    }
}
