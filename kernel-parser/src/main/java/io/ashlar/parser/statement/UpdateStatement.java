package io.ashlar.parser.statement;

import java.util.List;
import java.util.Optional;

/**
 * UPDATE; see <a href="https://www.postgresql.org/docs/current/sql-update.html">UPDATE</a>. The WHERE
 * conditions are those of block 0, which holds the target and the FROM tables.
 *
 * @param target      index of the target table in {@link AnalyzedStatement#tables()}
 * @param assignments the SET list
 * @param where       source range of the WHERE condition
 * @param currentOf   whether {@code WHERE CURRENT OF cursor}
 * @param returning   source range of the RETURNING list
 */
public record UpdateStatement(int target, List<Assignment> assignments, Optional<SourceRange> where,
                              boolean currentOf, Optional<SourceRange> returning) implements StatementBody {
    public UpdateStatement {
        assignments = List.copyOf(assignments);
    }
}
