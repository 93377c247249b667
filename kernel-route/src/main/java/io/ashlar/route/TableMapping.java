package io.ashlar.route;

/**
 * One logic table and the actual table a route unit reads or writes in its place.
 *
 * @param logicTable normalised logic table name ({@code t_order})
 * @param actualTable actual table name on the unit's data source ({@code t_order_1})
 */
public record TableMapping(String logicTable, String actualTable) {
}
