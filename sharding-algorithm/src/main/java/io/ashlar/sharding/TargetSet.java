package io.ashlar.sharding;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;

/**
 * The targets a range or a list of values routes to: a set of indexes into one
 * {@link ShardingTargets}, ascending and without duplicates, so the result of routing can be
 * intersected and iterated without hashing names.
 *
 * <p>Immutable.
 */
public final class TargetSet {

    private final ShardingTargets targets;

    private final int[] indexes;

    TargetSet(ShardingTargets targets, int[] indexes) {
        this.targets = targets;
        this.indexes = indexes;
    }

    /** The targets these indexes point into. */
    public ShardingTargets targets() {
        return targets;
    }

    public int size() {
        return indexes.length;
    }

    public boolean isEmpty() {
        return indexes.length == 0;
    }

    /** Whether every target is in the set. */
    public boolean isAll() {
        return indexes.length == targets.size();
    }

    /** The {@code i}-th index (ascending). */
    public int index(int i) {
        return indexes[i];
    }

    /** The name of the {@code i}-th target of the set. */
    public String name(int i) {
        return targets.name(indexes[i]);
    }

    public boolean contains(int targetIndex) {
        return Arrays.binarySearch(indexes, targetIndex) >= 0;
    }

    /** The names, in target order (a view; immutable). */
    public List<String> names() {
        return new AbstractList<>() {

            @Override
            public String get(int i) {
                return name(i);
            }

            @Override
            public int size() {
                return indexes.length;
            }
        };
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TargetSet that && targets == that.targets && Arrays.equals(indexes, that.indexes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(indexes);
    }

    @Override
    public String toString() {
        return names().toString();
    }

    /** Collects target indexes; not thread-safe, one per routing call. */
    public static final class Builder {

        private final ShardingTargets targets;

        private final boolean[] marked;

        private int count;

        Builder(ShardingTargets targets) {
            this.targets = targets;
            this.marked = new boolean[targets.size()];
        }

        /** Adds a target; a negative index (no target) is ignored. */
        public Builder add(int index) {
            if (index >= 0 && !marked[index]) {
                marked[index] = true;
                count++;
            }
            return this;
        }

        /** Adds every target of another set over the same targets. */
        public Builder addAll(TargetSet set) {
            for (int each : set.indexes) {
                add(each);
            }
            return this;
        }

        public int size() {
            return count;
        }

        public TargetSet build() {
            if (count == marked.length) {
                return targets.all();
            }
            if (count == 0) {
                return targets.none();
            }
            int[] result = new int[count];
            int next = 0;
            for (int i = 0; i < marked.length; i++) {
                if (marked[i]) {
                    result[next++] = i;
                }
            }
            return new TargetSet(targets, result);
        }
    }
}
