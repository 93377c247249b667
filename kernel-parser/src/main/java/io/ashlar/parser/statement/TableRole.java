package io.ashlar.parser.statement;

/** Why a statement names a table; see {@link TableReference}. */
public enum TableRole {
    /** Read: in FROM, JOIN, UPDATE ... FROM, DELETE ... USING, MERGE ... USING, COPY ... TO, LOCK. */
    FROM,
    /** Written by the statement: INSERT INTO, UPDATE, DELETE FROM, MERGE INTO, COPY ... FROM. */
    DML_TARGET,
    /** The table a DDL statement creates, alters, drops or truncates (also SELECT INTO's new table). */
    DDL_TARGET,
    /** Another table named by DDL: REFERENCES, LIKE, INHERITS, PARTITION OF, ATTACH/DETACH PARTITION, RENAME TO. */
    DDL_REFERENCE,
    /**
     * The table name used as a column qualifier ({@code t_order.id}, {@code t_order.*},
     * {@code FOR UPDATE OF t_order}) where {@code t_order} is a table of the statement written without
     * an alias. Not a new table for routing, but rewriting must rename it like the others.
     */
    COLUMN_QUALIFIER
}
