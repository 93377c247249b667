package io.ashlar.route.rule;

/**
 * Routes rows of one sharded table that arrive with a fixed column order (COPY ... FROM STDIN): the proxy converts
 * each row's sharding values to Java values and asks for its node. Values are put in their canonical form first
 * ({@link ShardingValues#normaliseStored}), as an INSERT's are. Built once per COPY statement; thread-safe.
 */
public final class RowRouter {

    private final ShardingTable table;

    private final int[] positions;

    RowRouter(ShardingTable table, int[] positions) {
        this.table = table;
        this.positions = positions;
    }

    /** Where each sharding column (by column id) is in a row, -1 when the row does not have it. */
    public int position(int columnId) {
        return positions[columnId];
    }

    /** How many sharding columns the table has. */
    public int columnCount() {
        return positions.length;
    }

    /**
     * The node of one row.
     *
     * @param row the row's values in the router's column order ({@code null} for SQL NULL); only the sharding
     *            columns are read
     * @return the node index, {@link ShardingTable#NO_NODE}, {@link ShardingTable#SEVERAL_NODES} or
     *         {@link ShardingTable#UNUSABLE_VALUE}
     */
    public int route(Object[] row) {
        Object[] values = new Object[positions.length];
        for (int i = 0; i < positions.length; i++) {
            int position = positions[i];
            values[i] = position >= 0 && position < row.length ? ShardingValues.normaliseStored(row[position]) : null;
        }
        return table.routeRow(values);
    }
}
