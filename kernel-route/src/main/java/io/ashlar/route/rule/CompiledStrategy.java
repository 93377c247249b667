package io.ashlar.route.rule;

import io.ashlar.sharding.BoundComplexAlgorithm;
import io.ashlar.sharding.BoundHintAlgorithm;
import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ComplexShardingValues;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.TargetSet;

import java.util.List;

/**
 * A {@code databaseStrategy} or {@code tableStrategy} with its algorithm bound to its targets once, at compile
 * time: routing is a call on the bound algorithm with the statement's constraints, no configuration lookup.
 * Columns are addressed by the owning {@link ShardingTable}'s column ids.
 *
 * <p>A value the algorithm maps to no target gives no target here; {@link ShardingTable#route} decides what that
 * means for the whole table.
 */
sealed interface CompiledStrategy {

    /** Returned by {@link #routeOne} when the values leave more than one target possible. */
    int SEVERAL = -2;

    /** The targets a conjunction's constraints allow (indexes into the bound targets). */
    TargetSet route(ColumnConstraint[] constraints);

    /**
     * The one target of a row whose sharding values are known ({@code null} where absent).
     *
     * @return a target index, {@link BoundStandardAlgorithm#NO_TARGET} or {@link #SEVERAL}
     */
    int routeOne(Object[] values);

    /** Whether a range constraint reaches the algorithm (so that it may refuse ranges). */
    default boolean usesColumn(int columnId) {
        return false;
    }

    /** An algorithm refused to route a range (or could not use one of its ends). */
    final class RangeRefusal extends RuntimeException {

        private static final long serialVersionUID = 1L;

        RangeRefusal(ShardingAlgorithmException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /** {@code none}: every target. */
    record None(ShardingTargets targets) implements CompiledStrategy {

        @Override
        public TargetSet route(ColumnConstraint[] constraints) {
            return targets.all();
        }

        @Override
        public int routeOne(Object[] values) {
            return targets.size() == 1 ? 0 : SEVERAL;
        }
    }

    /** {@code standard}: one column, one bound algorithm. */
    record Standard(int column, BoundStandardAlgorithm bound) implements CompiledStrategy {

        @Override
        public TargetSet route(ColumnConstraint[] constraints) {
            ColumnConstraint constraint = constraints[column];
            ShardingTargets targets = bound.targets();
            return switch (constraint.kind()) {
                case UNRESTRICTED -> targets.all();
                case NOTHING -> targets.none();
                case RANGE -> {
                    try {
                        yield bound.routeRange(constraint.range());
                    } catch (ShardingAlgorithmException e) {
                        throw new RangeRefusal(e);
                    }
                }
                case VALUES -> {
                    List<Comparable<?>> values = constraint.values();
                    if (values.size() == 1) {
                        int index = bound.route(values.get(0));
                        yield index < 0 ? targets.none() : targets.single(index);
                    }
                    TargetSet.Builder result = targets.newTargetSet();
                    for (int i = 0, n = values.size(); i < n; i++) {
                        result.add(bound.route(values.get(i)));
                    }
                    yield result.build();
                }
            };
        }

        @Override
        public int routeOne(Object[] values) {
            Object value = values[column];
            return value == null ? SEVERAL : bound.route((Comparable<?>) value);
        }

        @Override
        public boolean usesColumn(int columnId) {
            return column == columnId;
        }
    }

    /** {@code complex}: several columns handed to the algorithm together. */
    record Complex(int[] columns, List<String> columnNames, BoundComplexAlgorithm bound) implements CompiledStrategy {

        @Override
        public TargetSet route(ColumnConstraint[] constraints) {
            ComplexShardingValues.Builder values = ComplexShardingValues.builder(columnNames);
            for (int i = 0; i < columns.length; i++) {
                ColumnConstraint constraint = constraints[columns[i]];
                switch (constraint.kind()) {
                    case NOTHING -> {
                        return bound.targets().none();
                    }
                    case VALUES -> values.values(i, constraint.values());
                    case RANGE -> values.range(i, constraint.range());
                    case UNRESTRICTED -> {
                        // the algorithm sees no value for this column
                    }
                }
            }
            ComplexShardingValues built = values.build();
            if (!built.hasRange()) {
                return bound.route(built);
            }
            try {
                return bound.route(built);
            } catch (ShardingAlgorithmException e) {
                throw new RangeRefusal(e);
            }
        }

        @Override
        public int routeOne(Object[] rowValues) {
            ComplexShardingValues.Builder values = ComplexShardingValues.builder(columnNames);
            for (int i = 0; i < columns.length; i++) {
                Object value = rowValues[columns[i]];
                if (value != null) {
                    values.value(i, (Comparable<?>) value);
                }
            }
            TargetSet result = bound.route(values.build());
            return result.size() == 1 ? result.index(0) : result.isEmpty() ? BoundStandardAlgorithm.NO_TARGET : SEVERAL;
        }

        @Override
        public boolean usesColumn(int columnId) {
            for (int each : columns) {
                if (each == columnId) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * {@code hint}: routed by values the client gives out of band. No hint channel exists yet, so every target
     * (what ShardingSphere's HINT_INLINE does without a hint value); a hint source would pass its values here.
     */
    record Hint(BoundHintAlgorithm bound) implements CompiledStrategy {

        @Override
        public TargetSet route(ColumnConstraint[] constraints) {
            TargetSet result = bound.route(List.of());
            return result.isEmpty() ? bound.targets().all() : result;
        }

        @Override
        public int routeOne(Object[] values) {
            TargetSet result = bound.route(List.of());
            return result.size() == 1 ? result.index(0) : SEVERAL;
        }
    }
}
