package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * Transaction control. Modes apply to BEGIN, START TRANSACTION, SET TRANSACTION and SET SESSION
 * CHARACTERISTICS.
 *
 * @param command        which command
 * @param isolationLevel ISOLATION LEVEL, if given
 * @param readOnly       READ ONLY (true) or READ WRITE (false), if given
 * @param deferrable     DEFERRABLE (true) or NOT DEFERRABLE (false), if given
 * @param chain          COMMIT / ROLLBACK AND CHAIN
 * @param name           the savepoint name (normalised), or the global transaction id of the two-phase commands
 *                       and the snapshot id of SET TRANSACTION SNAPSHOT (string value)
 */
public record TransactionStatement(TransactionCommand command, Optional<IsolationLevel> isolationLevel,
                                   Optional<Boolean> readOnly, Optional<Boolean> deferrable, boolean chain,
                                   Optional<String> name) implements StatementBody {
}
