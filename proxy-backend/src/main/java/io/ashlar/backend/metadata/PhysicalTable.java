package io.ashlar.backend.metadata;

/**
 * A table as one backend database holds it.
 *
 * @param oid      its {@code pg_class} OID in that database
 * @param metadata its definition, in that database's names
 * @param attnums  the column number of each column of {@code metadata}, in order (dropped columns leave gaps)
 */
public record PhysicalTable(int oid, TableMetadata metadata, short[] attnums) {
}
