/**
 * The built-in algorithms, one class each, named after ShardingSphere's type names
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/">Sharding Algorithm</a>).
 */
package io.ashlar.sharding.algorithm;
