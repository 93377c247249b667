package io.ashlar.parser.statement;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * INSERT; see <a href="https://www.postgresql.org/docs/current/sql-insert.html">INSERT</a>. The
 * target and its alias are in {@link AnalyzedStatement#tables()} at index {@link #target()}; the
 * tables of an INSERT ... SELECT and of subqueries are there too, in their own blocks.
 *
 * @param target         index of the target table in {@link AnalyzedStatement#tables()}
 * @param columns        the column list, empty when there is none
 * @param columnsEnd     offset of the column list's closing parenthesis (where a generated key column is
 *                       appended), empty when there is no column list
 * @param rows           the VALUES rows; empty for INSERT ... SELECT and DEFAULT VALUES
 * @param query          source range of the query of INSERT ... SELECT (or of a VALUES list with ORDER BY etc.)
 * @param defaultValues  whether DEFAULT VALUES
 * @param onConflict     source range of the ON CONFLICT clause
 * @param returning      source range of the RETURNING list (after the keyword)
 */
public record InsertStatement(int target, List<InsertColumn> columns, OptionalInt columnsEnd, List<ValuesRow> rows,
                              Optional<SourceRange> query, boolean defaultValues, Optional<SourceRange> onConflict,
                              Optional<SourceRange> returning) implements StatementBody {
    public InsertStatement {
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
    }

    /** The index of {@code column} in the column list, or -1. */
    public int columnIndex(String column) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(column)) {
                return i;
            }
        }
        return -1;
    }
}
