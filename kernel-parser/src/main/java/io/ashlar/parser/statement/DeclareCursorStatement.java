package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * {@code DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR [{WITH | WITHOUT} HOLD]
 * FOR query}. Analyse {@link #query()}'s text to route it.
 *
 * @param name   the normalised cursor name
 * @param binary whether FETCH returns the rows in binary format
 * @param scroll SCROLL (true), NO SCROLL (false), or neither
 * @param hold   whether the cursor outlives its transaction (WITH HOLD)
 * @param query  source range of the cursor's query
 * @see <a href="https://www.postgresql.org/docs/current/sql-declare.html">DECLARE</a>
 */
public record DeclareCursorStatement(String name, boolean binary, Optional<Boolean> scroll, boolean hold, SourceRange query)
        implements StatementBody {
}
