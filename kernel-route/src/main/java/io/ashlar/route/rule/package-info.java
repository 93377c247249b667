/**
 * The compiled form of a logical database's rules ({@link io.ashlar.route.rule.ShardingRules}): the
 * configuration records of {@code io.ashlar.route.config} turned, once, into sharded tables with their data
 * nodes expanded and their algorithms bound ({@link io.ashlar.route.rule.ShardingTable}), broadcast and
 * single tables, binding groups and the route results that never change. Immutable snapshots, read by the
 * route engine without locks; the proxy swaps a whole snapshot when the configuration changes.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
package io.ashlar.route.rule;
