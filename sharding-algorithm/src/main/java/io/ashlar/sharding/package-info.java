/**
 * The sharding algorithm API the route engine compiles against: the three kinds of
 * {@link io.ashlar.sharding.ShardingAlgorithm} (standard, complex, hint), the factory
 * {@link io.ashlar.sharding.ShardingAlgorithms}, and the values routing works with
 * ({@link io.ashlar.sharding.ShardingTargets}, {@link io.ashlar.sharding.TargetSet},
 * {@link io.ashlar.sharding.ShardingRange}, {@link io.ashlar.sharding.ComplexShardingValues}).
 *
 * <p>Algorithms are built once from {@code config-sharding.yaml} and bound once per target list;
 * routing a statement is then a call on a bound, immutable object.
 */
package io.ashlar.sharding;
