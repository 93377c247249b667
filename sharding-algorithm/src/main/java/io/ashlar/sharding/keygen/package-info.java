/**
 * Key generators for key columns left out of an {@code INSERT}: SNOWFLAKE and UUID
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/keygen/">Distributed Sequence Algorithm</a>).
 */
package io.ashlar.sharding.keygen;
