package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * {@code DEALLOCATE [PREPARE] name} or {@code DEALLOCATE ALL}.
 *
 * @param name the normalised statement name; empty for ALL
 */
public record DeallocateStatement(Optional<String> name) implements StatementBody {
}
