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
 * @param name              the constraint's name as written ({@code CONSTRAINT name}), empty when PostgreSQL names it
 * @param options           what the key asks for beyond PostgreSQL's default NO ACTION checks, as written upper case:
 *                          {@code ON DELETE CASCADE}, {@code ON UPDATE SET NULL}, {@code DEFERRABLE}, {@code MATCH FULL},
 *                          ... ({@code NOT DEFERRABLE}, {@code NO ACTION}, {@code RESTRICT}, {@code MATCH SIMPLE} and
 *                          {@code NOT VALID} are not listed)
 * @param notValid          whether {@code NOT VALID}: existing rows are not checked
 * @see <a href="https://www.postgresql.org/docs/current/sql-createtable.html#SQL-CREATETABLE-PARMS-REFERENCES">REFERENCES</a>
 */
public record ForeignKey(int table, List<String> columns, int referencedTable, List<String> referencedColumns, String name,
                         List<String> options, boolean notValid) {

    public ForeignKey {
        columns = List.copyOf(columns);
        referencedColumns = List.copyOf(referencedColumns);
        options = List.copyOf(options);
    }

    public ForeignKey(int table, List<String> columns, int referencedTable, List<String> referencedColumns) {
        this(table, columns, referencedTable, referencedColumns, "", List.of(), false);
    }
}
