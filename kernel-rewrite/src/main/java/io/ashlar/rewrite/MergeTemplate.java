package io.ashlar.rewrite;

import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.TextCollation;
import io.ashlar.merge.step.MergeStep;
import io.ashlar.merge.value.TypeOids;
import io.ashlar.rewrite.query.MergeSpec;
import io.ashlar.route.RouteParameters;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * How the proxy merges the units' rows of one execution of a multi-shard query, known before any
 * shard answered except for the shape of the rows: call {@link #merge} with the column types of
 * the first shard's RowDescription. The compiled step is cached per statement and column count;
 * this execution's LIMIT and OFFSET (literals, or parameters read at rewrite) are applied on top.
 *
 * <p>The shard rows hold the client's columns followed by {@link #derivedColumns()} derived ones
 * (AVG's SUM and COUNT, ORDER BY and GROUP BY keys not selected, HAVING aggregates); the merged
 * cursor already hides them, and RowDescription must show only the first {@link #visibleColumns}.
 * A few visible columns are not what the shards computed either: {@code COUNT/SUM/AVG(DISTINCT x)}
 * reach the shards as x itself, so RowDescription must describe them as {@link #resultTypes} says.
 */
public final class MergeTemplate {

    private final MergeSpec spec;
    private final long offset;
    private final OptionalLong limit;
    private final RouteParameters parameters;

    MergeTemplate(MergeSpec spec, long offset, OptionalLong limit, RouteParameters parameters) {
        this.spec = spec;
        this.offset = offset;
        this.limit = limit;
        this.parameters = parameters;
    }

    /**
     * The merge step and visible width for one execution, its rows typed as the shards report.
     *
     * @param resultTypes the visible columns whose RowDescription field the proxy must replace;
     *                    usually empty (see {@link MergeTemplate#resultTypes})
     */
    public record Merge(MergeStep step, int visibleColumns, List<ResultType> resultTypes) {
    }

    /**
     * A visible column that PostgreSQL would describe otherwise than the shard did: the result type
     * of an aggregate the shards did not compute as written. Its RowDescription field keeps the
     * shard's name and format, takes this type OID, size and modifier, and table OID and column
     * number 0 (a computed column, as PostgreSQL reports every aggregate). See
     * <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-ROWDESCRIPTION">RowDescription</a>
     * and the result types of <a href="https://www.postgresql.org/docs/current/functions-aggregate.html">Aggregate Functions</a>.
     *
     * @param column       0-based index among the visible columns
     * @param typeOid      {@code pg_type.oid} of the result
     * @param typeSize     {@code pg_type.typlen}: 8, 4, or -1 for a varlena
     * @param typeModifier always -1: an aggregate's result has no typmod
     */
    public record ResultType(int column, int typeOid, short typeSize, int typeModifier) {

        static ResultType of(int column, int typeOid) {
            short size = switch (typeOid) {
                case TypeOids.INT8, TypeOids.FLOAT8 -> 8;
                case TypeOids.FLOAT4 -> 4;
                default -> -1;
            };
            return new ResultType(column, typeOid, size, -1);
        }

        /** {@code #1=20(8,-1)}: column, type OID, size and modifier. */
        public String describe() {
            return "#" + column + "=" + typeOid + "(" + typeSize + "," + typeModifier + ")";
        }
    }

    /**
     * The merge for shard rows of these types, comparing text as PostgreSQL's "C" collation does.
     *
     * @throws io.ashlar.route.RouteException 0A000 when the rows cannot be merged exactly
     */
    public Merge merge(int[] typeOids) {
        return merge(typeOids, TextCollation.C);
    }

    /**
     * The merge for shard rows of these types; {@code collation} orders text as the shards' collation
     * does (it must, for ORDER BY and for GROUP BY merged while streaming).
     */
    public Merge merge(int[] typeOids, TextCollation collation) {
        return new Merge(spec.step(typeOids, offset, limit, collation, parameters), spec.visibleColumns(typeOids.length),
                resultTypes(typeOids));
    }

    /**
     * The visible columns whose RowDescription field must be replaced, for shard rows of these
     * types (those of the first shard's RowDescription, derived columns included): PostgreSQL's
     * result type of each {@code COUNT/SUM/AVG(DISTINCT x)} of the select list, whose shard column
     * is x. {@code count} is bigint; {@code sum} of smallint or integer is bigint, of bigint or
     * numeric numeric, of real real, of double precision double precision; {@code avg} of an
     * integer or numeric is numeric, of real or double precision double precision. An argument
     * type the merge cannot add up (money, interval) is left as it is: the merge refuses it.
     * Empty, and allocation-free, for a statement with no such aggregate.
     */
    public List<ResultType> resultTypes(int[] typeOids) {
        List<Aggregate> aggregates = spec.visibleDistinctAggregates();
        if (aggregates.isEmpty()) {
            return List.of();
        }
        List<ResultType> result = new ArrayList<>(aggregates.size());
        for (Aggregate aggregate : aggregates) {
            int typeOid = switch (aggregate) {
                case Aggregate.CountDistinct count -> TypeOids.INT8;
                case Aggregate.SumDistinct sum -> sumType(argumentType(typeOids, sum.argumentColumn()));
                case Aggregate.AvgDistinct avg -> averageType(argumentType(typeOids, avg.argumentColumn()));
                default -> 0;
            };
            if (typeOid != 0 && aggregate.column() < typeOids.length) {
                result.add(ResultType.of(aggregate.column(), typeOid));
            }
        }
        return List.copyOf(result);
    }

    private static int argumentType(int[] typeOids, int column) {
        return column < typeOids.length ? typeOids[column] : 0;
    }

    /** PostgreSQL's {@code sum} result type for an argument type; 0 for one the merge does not add. */
    private static int sumType(int argumentType) {
        return switch (argumentType) {
            case TypeOids.INT2, TypeOids.INT4 -> TypeOids.INT8;
            case TypeOids.INT8, TypeOids.NUMERIC -> TypeOids.NUMERIC;
            case TypeOids.FLOAT4 -> TypeOids.FLOAT4;
            case TypeOids.FLOAT8 -> TypeOids.FLOAT8;
            default -> 0;
        };
    }

    /** PostgreSQL's {@code avg} result type for an argument type; 0 for one the merge does not average. */
    private static int averageType(int argumentType) {
        return switch (argumentType) {
            case TypeOids.INT2, TypeOids.INT4, TypeOids.INT8, TypeOids.NUMERIC -> TypeOids.NUMERIC;
            case TypeOids.FLOAT4, TypeOids.FLOAT8 -> TypeOids.FLOAT8;
            default -> 0;
        };
    }

    /** The plan the merge compiles, for EXPLAIN and tests. */
    public MergePlan plan(int[] typeOids) {
        return spec.plan(typeOids, offset, limit, TextCollation.C, parameters);
    }

    /** Columns the client sees of {@code total} shard columns. */
    public int visibleColumns(int total) {
        return spec.visibleColumns(total);
    }

    public int derivedColumns() {
        return spec.derivedColumns();
    }

    /** Rows the proxy skips: this execution's OFFSET. */
    public long offset() {
        return offset;
    }

    /** Rows the proxy returns after the offset: this execution's LIMIT. */
    public OptionalLong limit() {
        return limit;
    }

    /** The statement-level merge, derived columns as {@code d0, d1 ...}. */
    public String describe() {
        return spec.describe();
    }

    /**
     * Whether the merge reads no value of the units' rows and adds no column: they go on one unit after another, cut
     * by a LIMIT or OFFSET at most (which count rows), so that they may be in any format the client asked for.
     */
    public boolean readsNoValues() {
        return spec.iteratesOnly();
    }

    /** Whether the units' rows, one unit after another, are the result as it is: nothing to sort, group or cut. */
    public boolean iteratesOnly() {
        return spec.iteratesOnly() && offset == 0 && limit.isEmpty();
    }
}
