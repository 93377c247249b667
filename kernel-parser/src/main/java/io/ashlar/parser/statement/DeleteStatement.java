package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * DELETE; see <a href="https://www.postgresql.org/docs/current/sql-delete.html">DELETE</a>. The WHERE
 * conditions are those of block 0, which holds the target and the USING tables.
 *
 * @param target    index of the target table in {@link AnalyzedStatement#tables()}
 * @param where     source range of the WHERE condition
 * @param currentOf whether {@code WHERE CURRENT OF cursor}
 * @param returning source range of the RETURNING list
 */
public record DeleteStatement(int target, Optional<SourceRange> where, boolean currentOf,
                              Optional<SourceRange> returning) implements StatementBody {
}
