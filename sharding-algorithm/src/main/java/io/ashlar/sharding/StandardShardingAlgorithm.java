package io.ashlar.sharding;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * An algorithm for a {@code standard} sharding strategy: one sharding column, routed by an
 * equality or {@code IN} value or by a range
 * (<a href="https://shardingsphere.apache.org/document/current/en/dev-manual/sharding/">ShardingSphere's StandardShardingAlgorithm</a>).
 *
 * <h2>Writing your own ({@code CLASS_BASED}, {@code strategy: STANDARD})</h2>
 * Implement the two {@code doSharding} methods in a public class with a public no-argument
 * constructor, put its jar on the proxy's classpath, and configure
 * <pre>{@code
 * shardingAlgorithms:
 *   my_algorithm:
 *     type: CLASS_BASED
 *     props:
 *       strategy: STANDARD
 *       algorithmClassName: com.example.MyAlgorithm
 *       any-other-prop: 42        # handed to init(Properties)
 * }</pre>
 * {@link #init} is called once with all properties. Both methods may be called by many threads
 * at once and must not block. Return names taken from {@code availableTargets}; a precise
 * result outside that list is reported as a routing error.
 *
 * <p>The route engine does not call {@code doSharding} on the hot path: it calls
 * {@link #bind} once per target list when the rule is compiled and then routes through the bound
 * object. Built-in algorithms bind to precomputed lookup tables; a user algorithm keeps the
 * default, which calls {@code doSharding}.
 */
public non-sealed interface StandardShardingAlgorithm extends ShardingAlgorithm {

    /**
     * Routes one value ({@code column = value}, or one element of {@code column IN (...)}).
     *
     * @param availableTargets the data sources or actual tables to choose from
     * @param columnName the sharding column
     * @param value the value, never {@code null}
     * @return the chosen target, or empty if the value belongs to no available target
     * @throws ShardingAlgorithmException if the value cannot be used by this algorithm
     */
    Optional<String> doSharding(List<String> availableTargets, String columnName, Comparable<?> value);

    /**
     * Routes a range of values.
     *
     * @return every target that may hold a value of the range (returning all is always correct)
     * @throws ShardingAlgorithmException if the algorithm refuses ranges or cannot use an endpoint
     */
    Collection<String> doSharding(List<String> availableTargets, String columnName, ShardingRange range);

    /**
     * Prepares routing over fixed targets; called when the rule is compiled, never per statement.
     *
     * @param columnName the sharding column of the strategy
     * @param targets the targets, with their suffix naming
     * @throws ShardingAlgorithmException if the algorithm cannot route this column (e.g. an INLINE
     *         expression that names another column)
     */
    default BoundStandardAlgorithm bind(String columnName, ShardingTargets targets) {
        return new AdaptedStandardAlgorithm(this, columnName, targets);
    }
}
