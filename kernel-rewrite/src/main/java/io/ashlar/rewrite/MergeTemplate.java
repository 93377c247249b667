package io.ashlar.rewrite;

import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.TextCollation;
import io.ashlar.merge.step.MergeStep;
import io.ashlar.rewrite.query.MergeSpec;
import io.ashlar.route.RouteParameters;

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

    /** The merge step and visible width for one execution, its rows typed as the shards report. */
    public record Merge(MergeStep step, int visibleColumns) {
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
        return new Merge(spec.step(typeOids, offset, limit, collation, parameters), spec.visibleColumns(typeOids.length));
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
}
