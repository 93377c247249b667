package io.ashlar.route.rule;

/**
 * What the rules say about one logic table name: sharded over many data nodes, broadcast to every data source, or
 * a single table on one data source. Tables named by no rule and found in no backend's catalog have no
 * {@code RuleTable}: they are looked for on the default data source.
 */
public sealed interface RuleTable permits ShardingTable, BroadcastTable, SingleTable {

    /** The logic table name, as the rule (or the catalog) spells it. */
    String logicTable();
}
