package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * {@code CLOSE name} or {@code CLOSE ALL}.
 *
 * @param cursor the normalised cursor name; empty for ALL
 * @see <a href="https://www.postgresql.org/docs/current/sql-close.html">CLOSE</a>
 */
public record CloseCursorStatement(Optional<String> cursor) implements StatementBody {
}
