package io.ashlar.merge.aggregate;

import io.ashlar.merge.RowCursor;
import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.GroupKeyEncoder;
import io.ashlar.merge.value.TypeOids;
import io.ashlar.merge.value.ValueKind;
import io.ashlar.merge.value.ValueOrdering;

import java.util.List;

/**
 * The aggregates of a plan bound to the column types of the shard rows: which arithmetic each
 * uses, the result type it reports (PostgreSQL's, per
 * <a href="https://www.postgresql.org/docs/current/functions-aggregate.html">Aggregate Functions</a>),
 * and how a group's output row is assembled. Made once per merged cursor; the per-group work is
 * {@link #add} and {@link #finish}, with no lookups.
 */
public final class AggregateLayout {

    private final Aggregate[] aggregates;
    private final int[] outputColumns;
    private final int[] resultTypes;
    private final SumState.Mode[] modes;
    private final boolean[] realInputs;
    private final ValueOrdering[] orderings;

    private AggregateLayout(Aggregate[] aggregates, int[] resultTypes, SumState.Mode[] modes, boolean[] realInputs,
                            ValueOrdering[] orderings) {
        this.aggregates = aggregates;
        this.resultTypes = resultTypes;
        this.modes = modes;
        this.realInputs = realInputs;
        this.orderings = orderings;
        this.outputColumns = new int[aggregates.length];
        for (int i = 0; i < aggregates.length; i++) {
            outputColumns[i] = aggregates[i].column();
        }
    }

    /**
     * Binds aggregates to the types of {@code input}'s columns.
     *
     * @throws IllegalArgumentException when an aggregate cannot be merged over its column type
     *                                  (SUM over money or interval, AVG over interval, MIN or MAX over a type whose
     *                                  order the proxy does not know)
     */
    public static AggregateLayout bind(List<Aggregate> aggregates, RowCursor input, ColumnCollations collations) {
        int size = aggregates.size();
        Aggregate[] bound = aggregates.toArray(new Aggregate[0]);
        int[] resultTypes = new int[size];
        SumState.Mode[] modes = new SumState.Mode[size];
        boolean[] realInputs = new boolean[size];
        ValueOrdering[] orderings = new ValueOrdering[size];
        for (int i = 0; i < size; i++) {
            Aggregate aggregate = bound[i];
            switch (aggregate) {
                case Aggregate.Count count -> resultTypes[i] = TypeOids.INT8;
                case Aggregate.CountDistinct count -> {
                    resultTypes[i] = TypeOids.INT8;
                    orderings[i] = collations.ordering(count.argumentColumn(), input.typeOid(count.argumentColumn()));
                }
                case Aggregate.Sum sum -> {
                    modes[i] = partialSumMode(input.typeOid(sum.column()), "SUM");
                    resultTypes[i] = modes[i].typeOid();
                }
                case Aggregate.SumDistinct sum -> {
                    int argumentType = input.typeOid(sum.argumentColumn());
                    modes[i] = sumMode(argumentType);
                    resultTypes[i] = modes[i].typeOid();
                    orderings[i] = collations.ordering(sum.argumentColumn(), argumentType);
                }
                case Aggregate.Min min -> {
                    resultTypes[i] = extremeType(input.typeOid(min.column()), "MIN");
                    orderings[i] = collations.ordering(min.column(), resultTypes[i]);
                }
                case Aggregate.Max max -> {
                    resultTypes[i] = extremeType(input.typeOid(max.column()), "MAX");
                    orderings[i] = collations.ordering(max.column(), resultTypes[i]);
                }
                case Aggregate.Avg avg -> {
                    int sumType = input.typeOid(avg.sumColumn());
                    modes[i] = averageMode(sumType);
                    realInputs[i] = sumType == TypeOids.FLOAT4;
                    resultTypes[i] = modes[i] == SumState.Mode.DOUBLE ? TypeOids.FLOAT8 : TypeOids.NUMERIC;
                }
                case Aggregate.AvgDistinct avg -> {
                    int argumentType = input.typeOid(avg.argumentColumn());
                    modes[i] = averageMode(argumentType);
                    realInputs[i] = argumentType == TypeOids.FLOAT4;
                    resultTypes[i] = modes[i] == SumState.Mode.DOUBLE ? TypeOids.FLOAT8 : TypeOids.NUMERIC;
                    orderings[i] = collations.ordering(avg.argumentColumn(), argumentType);
                }
            }
        }
        return new AggregateLayout(bound, resultTypes, modes, realInputs, orderings);
    }

    /**
     * The type of a MIN or MAX over {@code typeOid}, refused here, before any row is read, when the proxy does not know
     * that type's order (inet, arrays, enums, money...): refused only when two shards' values met, it failed or not
     * depending on where the rows were, and past the point where the session can have PostgreSQL finish it instead.
     */
    private static int extremeType(int typeOid, String function) {
        if (!ValueKind.hasExactOrdering(typeOid)) {
            throw new IllegalArgumentException(function + " over type OID " + typeOid
                    + " cannot be merged across shards: the proxy does not know that type's sort order");
        }
        return typeOid;
    }

    /** The type of every output column: aggregates' result types, the input's for the rest. */
    public int[] outputTypes(RowCursor input) {
        int[] result = new int[input.columnCount()];
        for (int i = 0; i < result.length; i++) {
            result[i] = input.typeOid(i);
        }
        for (int i = 0; i < aggregates.length; i++) {
            result[outputColumns[i]] = resultTypes[i];
        }
        return result;
    }

    /** Fresh accumulators for one group, in plan order. */
    public Accumulator[] newAccumulators() {
        Accumulator[] result = new Accumulator[aggregates.length];
        for (int i = 0; i < result.length; i++) {
            result[i] = switch (aggregates[i]) {
                case Aggregate.Count count -> new CountAccumulator(count.column());
                case Aggregate.Sum sum -> new SumAccumulator(sum.column(), modes[i]);
                case Aggregate.Min min -> new ExtremeAccumulator(min.column(), orderings[i], false);
                case Aggregate.Max max -> new ExtremeAccumulator(max.column(), orderings[i], true);
                case Aggregate.Avg avg -> new AverageAccumulator(avg.sumColumn(), avg.countColumn(), modes[i], realInputs[i]);
                case Aggregate.CountDistinct count -> new DistinctAccumulator(count.argumentColumn(),
                        DistinctAccumulator.Function.COUNT, encoder(count.argumentColumn(), i), SumState.Mode.BIGINT, false);
                case Aggregate.SumDistinct sum -> new DistinctAccumulator(sum.argumentColumn(),
                        DistinctAccumulator.Function.SUM, encoder(sum.argumentColumn(), i), modes[i], false);
                case Aggregate.AvgDistinct avg -> new DistinctAccumulator(avg.argumentColumn(),
                        DistinctAccumulator.Function.AVG, encoder(avg.argumentColumn(), i), modes[i], realInputs[i]);
            };
        }
        return result;
    }

    /** Clears accumulators for the next group. */
    public static void reset(Accumulator[] accumulators) {
        for (Accumulator each : accumulators) {
            each.reset();
        }
    }

    /** Adds one shard row to every accumulator. */
    public static void add(Accumulator[] accumulators, byte[][] row) {
        for (Accumulator each : accumulators) {
            each.add(row);
        }
    }

    /**
     * The group's output row: a copy of {@code firstRow} (the values of the columns the proxy
     * does not compute) with every aggregate's result written over its column.
     */
    public byte[][] finish(Accumulator[] accumulators, byte[][] firstRow) {
        byte[][] result = firstRow.clone();
        for (int i = 0; i < accumulators.length; i++) {
            result[outputColumns[i]] = accumulators[i].result();
        }
        return result;
    }

    private GroupKeyEncoder encoder(int column, int aggregate) {
        return new GroupKeyEncoder(new int[] {column}, new ValueOrdering[] {orderings[aggregate]});
    }

    /** Adding the shards' SUMs keeps SUM's own result type. */
    private static SumState.Mode partialSumMode(int typeOid, String what) {
        return switch (typeOid) {
            case TypeOids.INT2, TypeOids.INT4, TypeOids.INT8 -> SumState.Mode.BIGINT;
            case TypeOids.NUMERIC -> SumState.Mode.NUMERIC;
            case TypeOids.FLOAT4 -> SumState.Mode.REAL;
            case TypeOids.FLOAT8 -> SumState.Mode.DOUBLE;
            default -> throw unsupported(what, typeOid);
        };
    }

    /** SUM over raw argument values: int2/int4 give bigint, int8 gives numeric (PostgreSQL's sum result types). */
    private static SumState.Mode sumMode(int argumentType) {
        return switch (argumentType) {
            case TypeOids.INT2, TypeOids.INT4 -> SumState.Mode.BIGINT;
            case TypeOids.INT8, TypeOids.NUMERIC -> SumState.Mode.NUMERIC;
            case TypeOids.FLOAT4 -> SumState.Mode.REAL;
            case TypeOids.FLOAT8 -> SumState.Mode.DOUBLE;
            default -> throw unsupported("SUM(DISTINCT)", argumentType);
        };
    }

    /** AVG over integers and numeric is numeric; over real and double precision it is double precision. */
    private static SumState.Mode averageMode(int typeOid) {
        return switch (typeOid) {
            case TypeOids.INT2, TypeOids.INT4, TypeOids.INT8, TypeOids.NUMERIC -> SumState.Mode.NUMERIC;
            case TypeOids.FLOAT4, TypeOids.FLOAT8 -> SumState.Mode.DOUBLE;
            default -> throw unsupported("AVG", typeOid);
        };
    }

    private static IllegalArgumentException unsupported(String what, int typeOid) {
        return new IllegalArgumentException(what + " over type OID " + typeOid + " cannot be merged across shards");
    }

    /** Prints the aggregates for EXPLAIN. */
    public static String describe(List<Aggregate> aggregates) {
        StringBuilder result = new StringBuilder("[");
        for (int i = 0; i < aggregates.size(); i++) {
            if (i > 0) {
                result.append(", ");
            }
            result.append(aggregates.get(i).describe());
        }
        return result.append(']').toString();
    }
}
