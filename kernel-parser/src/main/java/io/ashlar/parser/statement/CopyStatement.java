package io.ashlar.parser.statement;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * COPY; see <a href="https://www.postgresql.org/docs/current/sql-copy.html">COPY</a>.
 *
 * @param from     true for {@code COPY ... FROM} (loading), false for {@code COPY ... TO}
 * @param table    index of the table in {@link AnalyzedStatement#tables()}, empty for {@code COPY (query) TO}
 * @param columns  the column list, empty when there is none
 * @param query    source range of the query of {@code COPY (query) TO}, parentheses excluded
 * @param stdio    whether the data goes through the client ({@code STDIN} / {@code STDOUT})
 * @param options  source range of everything after the direction keyword
 */
public record CopyStatement(boolean from, OptionalInt table, List<InsertColumn> columns, Optional<SourceRange> query,
                            boolean stdio, SourceRange options) implements StatementBody {
    public CopyStatement {
        columns = List.copyOf(columns);
    }
}
