/**
 * Plain rule configuration, exactly as a ShardingSphere-Proxy 5.1-5.5 {@code config-*.yaml} states it
 * ({@code rules: - !SHARDING}, {@code - !BROADCAST}, {@code - !SINGLE}).
 *
 * <p>These records are what the YAML loader (proxy-bootstrap) or the ZooKeeper registry hands over; the
 * route module compiles them once into immutable lookup structures. They hold no behaviour and are never
 * read on the hot path. Every record is immutable and null-free: absent settings are {@link java.util.Optional}
 * or empty collections, maps keep the order of the file.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
package io.ashlar.route.config;
