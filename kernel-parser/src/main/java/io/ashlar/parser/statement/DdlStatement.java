package io.ashlar.parser.statement;

import java.util.List;
import java.util.Optional;

/**
 * CREATE, ALTER, DROP or TRUNCATE. Tables (role DDL_TARGET for the object itself, DDL_REFERENCE for
 * REFERENCES / LIKE / INHERITS / PARTITION OF / RENAME TO) and index or constraint names are in the
 * {@link AnalyzedStatement}.
 *
 * @param kind        which statement
 * @param objectType  the object type as written, lower case, single-spaced: {@code table},
 *                    {@code index}, {@code materialized view}, {@code sequence}, {@code function}, ...
 * @param ifExists    IF EXISTS
 * @param ifNotExists IF NOT EXISTS
 * @param query       the query of CREATE TABLE ... AS, CREATE VIEW ... AS, CREATE MATERIALIZED VIEW ... AS
 * @param foreignKeys the foreign keys CREATE TABLE or ALTER TABLE defines, in order
 */
public record DdlStatement(DdlKind kind, String objectType, boolean ifExists, boolean ifNotExists,
                           Optional<SourceRange> query, List<ForeignKey> foreignKeys) implements StatementBody {

    public DdlStatement {
        foreignKeys = List.copyOf(foreignKeys);
    }

    /** A statement that defines no foreign key. */
    public DdlStatement(DdlKind kind, String objectType, boolean ifExists, boolean ifNotExists, Optional<SourceRange> query) {
        this(kind, objectType, ifExists, ifNotExists, query, List.of());
    }
}
