package io.ashlar.backend.execute;

/**
 * One field of a RowDescription as the backend described it: the real table OID, column number,
 * type OID, size and modifier, so that clients see exactly what PostgreSQL would have told them.
 * The format is the one the backend used (text); the frontend applies the client's requested
 * formats.
 */
public record ColumnDescription(String name, int tableOid, short columnNumber, int typeOid, short typeSize,
                                int typeModifier) implements io.ashlar.protocol.RowDescription.Column {
}
