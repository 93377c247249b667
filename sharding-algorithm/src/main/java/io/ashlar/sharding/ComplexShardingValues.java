package io.ashlar.sharding;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The sharding values of one statement for a {@code complex} strategy: for each sharding column of
 * the strategy, the values it equals ({@code =} or {@code IN}), or a range, or nothing when the
 * statement does not constrain it. ShardingSphere passes the same as a
 * {@code ComplexKeysShardingValue} (a column-to-values map and a column-to-range map).
 *
 * <p>Columns are addressed by their index in {@link #columns()}, the order of the strategy's
 * {@code shardingColumns}. Immutable once built.
 */
public final class ComplexShardingValues {

    private final List<String> columns;

    private final List<List<Comparable<?>>> values;

    private final ShardingRange[] ranges;

    private final boolean anyRange;

    private ComplexShardingValues(List<String> columns, List<List<Comparable<?>>> values, ShardingRange[] ranges) {
        this.columns = columns;
        this.values = values;
        this.ranges = ranges;
        boolean found = false;
        for (ShardingRange each : ranges) {
            found |= each != null;
        }
        this.anyRange = found;
    }

    /** Starts the values of one statement; {@code columns} should be a list kept by the caller. */
    public static Builder builder(List<String> columns) {
        return new Builder(List.copyOf(columns));
    }

    /** The strategy's sharding columns. */
    public List<String> columns() {
        return columns;
    }

    /** The index of a column, ignoring case, or {@code -1}. */
    public int columnIndex(String column) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).equalsIgnoreCase(column)) {
                return i;
            }
        }
        return -1;
    }

    /** The values a column equals; empty if the statement gives none. */
    public List<Comparable<?>> values(int column) {
        return values.get(column);
    }

    /** The values a column equals, by name (ignoring case); empty if none or unknown column. */
    public List<Comparable<?>> values(String column) {
        int index = columnIndex(column);
        return index < 0 ? List.of() : values.get(index);
    }

    /** The range a column is constrained to, if the statement gives one. */
    public Optional<ShardingRange> range(int column) {
        return Optional.ofNullable(ranges[column]);
    }

    /** The range a column is constrained to, by name (ignoring case). */
    public Optional<ShardingRange> range(String column) {
        int index = columnIndex(column);
        return index < 0 ? Optional.empty() : Optional.ofNullable(ranges[index]);
    }

    /** Whether any column is constrained by a range. */
    public boolean hasRange() {
        return anyRange;
    }

    @Override
    public String toString() {
        StringBuilder result = new StringBuilder("{");
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) {
                result.append(", ");
            }
            result.append(columns.get(i)).append('=');
            result.append(ranges[i] != null ? ranges[i].toString() : values.get(i).toString());
        }
        return result.append('}').toString();
    }

    /** Collects the values of one statement; not thread-safe. */
    public static final class Builder {

        private final List<String> columns;

        private final List<List<Comparable<?>>> values;

        private final ShardingRange[] ranges;

        private Builder(List<String> columns) {
            this.columns = columns;
            this.values = new ArrayList<>(columns.size());
            for (int i = 0; i < columns.size(); i++) {
                values.add(new ArrayList<>(1));
            }
            this.ranges = new ShardingRange[columns.size()];
        }

        /** Adds a value the column equals. */
        public Builder value(int column, Comparable<?> value) {
            values.get(column).add(Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Adds values the column equals (an {@code IN} list). */
        public Builder values(int column, List<? extends Comparable<?>> columnValues) {
            for (Comparable<?> each : columnValues) {
                value(column, each);
            }
            return this;
        }

        /** Sets the range the column is constrained to. */
        public Builder range(int column, ShardingRange range) {
            ranges[column] = Objects.requireNonNull(range, "range");
            return this;
        }

        public ComplexShardingValues build() {
            List<List<Comparable<?>>> frozen = new ArrayList<>(values.size());
            for (List<Comparable<?>> each : values) {
                frozen.add(List.copyOf(each));
            }
            return new ComplexShardingValues(columns, List.copyOf(frozen), Arrays.copyOf(ranges, ranges.length));
        }
    }
}
