package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * One occurrence of a table name in the statement. Rewriting replaces {@link #nameRange()} (the
 * unqualified name token) or {@link #range()} (the whole, possibly schema-qualified, name) with the
 * actual table; routing looks at {@link #name()}, {@link #role()} and the conditions of
 * {@link #block()}.
 *
 * @param name      the normalised name
 * @param range     source range of the whole qualified name ({@code public."T"})
 * @param nameRange source range of the last name token alone ({@code "T"})
 * @param quoted    whether the last name token was written in double quotes
 * @param alias     the alias ({@code FROM t AS x}, {@code FROM t x}), normalised
 * @param role      why the statement names this table
 * @param block     the {@link QueryBlock} (SELECT core or DML statement) whose FROM list holds it
 */
public record TableReference(TableName name, SourceRange range, SourceRange nameRange, boolean quoted,
                             Optional<String> alias, TableRole role, int block) {

    /** Whether this occurrence is written to by a DML statement. */
    public boolean isDmlTarget() {
        return role == TableRole.DML_TARGET;
    }

    /** Whether this occurrence makes the statement touch the table (everything but a column qualifier or whole-row value). */
    public boolean isAccess() {
        return role != TableRole.COLUMN_QUALIFIER && role != TableRole.WHOLE_ROW_COLUMN;
    }

    /** The name a column qualifier uses for this table: its alias, or its name. */
    public String exposedName() {
        return alias.orElse(name.name());
    }
}
