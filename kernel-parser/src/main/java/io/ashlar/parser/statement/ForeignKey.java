package io.ashlar.parser.statement;

import java.util.List;

/**
 * A {@code FOREIGN KEY (...) REFERENCES t (...)} table constraint, or a column's {@code REFERENCES t [(c)]}, of CREATE
 * TABLE or ALTER TABLE: which columns of which table reference which columns of which other.
 *
 * @param table             the occurrence (index in {@link AnalyzedStatement#tables()}) of the referencing table
 * @param columns           the referencing columns, lower case unless quoted
 * @param referencedTable   the occurrence of the referenced table
 * @param referencedColumns the referenced columns as written; empty when the statement leaves them out (the referenced
 *                          table's primary key)
 * @see <a href="https://www.postgresql.org/docs/current/sql-createtable.html#SQL-CREATETABLE-PARMS-REFERENCES">REFERENCES</a>
 */
public record ForeignKey(int table, List<String> columns, int referencedTable, List<String> referencedColumns) {

    public ForeignKey {
        columns = List.copyOf(columns);
        referencedColumns = List.copyOf(referencedColumns);
    }
}
