package io.ashlar.rewrite.template;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.ValuesRow;

import java.util.ArrayList;
import java.util.List;

/**
 * The template of a statement that runs on each unit with only its names changed: table names
 * (column qualifiers included), index and constraint names of DDL, and, for INSERT ... VALUES,
 * the unit's own rows and the generated keys. What a single unit, a multi-unit write and DDL need.
 */
public final class RenameTemplate {

    private RenameTemplate() {
    }

    public static SqlTemplate compile(AnalyzedStatement statement) {
        List<Edit> edits = new ArrayList<>();
        int rowCount = 0;
        boolean markers = false;
        if (statement.body() instanceof InsertStatement insert && !insert.rows().isEmpty()) {
            List<ValuesRow> rows = insert.rows();
            rowCount = rows.size();
            markers = rowCount > 1;
            insert.columnsEnd().ifPresent(end -> edits.add(new Edit(end, end, builder -> builder.piece(new Piece.KeyColumn()))));
            if (rowCount == 1) {
                int end = rows.get(0).valuesEnd();
                edits.add(new Edit(end, end, builder -> builder.piece(new Piece.KeyValue(0))));
            } else {
                edits.add(new Edit(rows.get(0).range().start(), rows.get(rowCount - 1).range().end(),
                        builder -> builder.piece(rows(builder, rows))));
            }
        }
        TemplateBuilder builder = TemplateBuilder.of(statement, markers);
        return new SqlTemplate(statement, builder.splice(edits), true, rowCount);
    }

    private static Piece.Rows rows(TemplateBuilder builder, List<ValuesRow> rows) {
        Piece[][] pieces = new Piece[rows.size()][];
        String[] separators = new String[rows.size()];
        separators[0] = "";
        String sql = builder.sql();
        for (int i = 0; i < rows.size(); i++) {
            ValuesRow row = rows.get(i);
            pieces[i] = builder.fork().copy(row.range().start(), row.valuesEnd()).piece(new Piece.KeyValue(i))
                    .copy(row.valuesEnd(), row.range().end()).pieces();
            if (i > 0) {
                separators[i] = sql.substring(rows.get(i - 1).range().end(), row.range().start());
            }
        }
        return new Piece.Rows(pieces, separators);
    }
}
