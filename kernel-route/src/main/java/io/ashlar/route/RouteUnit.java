package io.ashlar.route;

import java.util.List;

/**
 * One piece of a routed statement: the data source it runs on and, for each logic table the
 * statement names, the actual table it uses there. For a multi-row INSERT, which of the
 * statement's VALUES rows go to this unit.
 *
 * @param dataSource data source name
 * @param tables logic → actual table, one entry per distinct logic table of the statement that is
 *        renamed on this unit (broadcast and single tables keep their names and are not listed)
 * @param insertRows indexes into {@code InsertStatement.rows()} routed to this unit, ascending;
 *        empty for anything but a multi-row INSERT ... VALUES (then the unit takes every row)
 */
public record RouteUnit(String dataSource, List<TableMapping> tables, int[] insertRows) {

    private static final int[] ALL_ROWS = new int[0];

    public RouteUnit {
        tables = List.copyOf(tables);
        insertRows = insertRows == null ? ALL_ROWS : insertRows;
    }

    public RouteUnit(String dataSource, List<TableMapping> tables) {
        this(dataSource, tables, ALL_ROWS);
    }

    /** The actual table standing for {@code logicTable} on this unit, or the logic name when it is not renamed. */
    public String actualTable(String logicTable) {
        for (int i = 0, n = tables.size(); i < n; i++) {
            TableMapping mapping = tables.get(i);
            if (mapping.logicTable().equals(logicTable)) {
                return mapping.actualTable();
            }
        }
        return logicTable;
    }

    /** Whether the unit takes a subset of a multi-row INSERT's rows. */
    public boolean hasRowSubset() {
        return insertRows.length > 0;
    }
}
