package io.ashlar.backend.metadata;

import java.util.List;

/**
 * A table as clients of the logical database see it: one definition, whatever number of actual tables hold its
 * rows, and what disagrees among them.
 *
 * @param kind         sharded, broadcast or single
 * @param metadata     the definition, in logical names: the first actual table's (in the rule's node order)
 * @param actualTables the actual tables that exist
 * @param problems     how actual tables differ from the first, or that they are missing, naming data source and table
 * @param columnsDiffer whether an actual table's columns are not the first's, in the same order (its rows of a
 *                     {@code SELECT *} would not line up with the others')
 */
public record LogicalTable(Kind kind, TableMetadata metadata, List<ActualTable> actualTables, List<String> problems,
                           boolean columnsDiffer) {

    /** How the rules hold a table. */
    public enum Kind {
        SHARDED, BROADCAST, SINGLE
    }

    public LogicalTable {
        actualTables = List.copyOf(actualTables);
        problems = List.copyOf(problems);
    }

    public String qualifiedName() {
        return metadata.qualifiedName();
    }
}
