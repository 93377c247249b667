package io.ashlar.backend.metadata;

/**
 * One actual table of a logical table, where it is and how its columns line up with the logical ones.
 *
 * @param dataSource     the data source's index in its logical database
 * @param dataSourceName the data source's name
 * @param table          the actual table's name
 * @param oid            its OID on that data source
 * @param logicalColumns by the actual column number: the logical column's number (1-based), 0 for none
 */
public record ActualTable(int dataSource, String dataSourceName, String table, int oid, short[] logicalColumns) {

    @Override
    public String toString() {
        return dataSourceName + "." + table;
    }
}
