package io.ashlar.rewrite.query;

import io.ashlar.merge.MergeEngine;
import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.plan.HavingPredicate;
import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.plan.TextCollation;
import io.ashlar.merge.step.MergeStep;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteParameters;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The merge of a multi-shard query as the rewriter knows it before any shard answered: sort and
 * group keys, aggregates and HAVING over columns that are either fixed (select-list items before
 * any {@code *}, ordinals) or derived (appended by the rewriter, counted from the end, since a
 * {@code *} expands to a number of columns only the backend knows). Symbolic indexes
 * {@code >= DERIVED} stand for derived column {@code index - DERIVED}.
 *
 * <p>{@link #step} resolves them when the first shard's RowDescription gives the column count,
 * and compiles the plan once per column count and collation: a lock-free single-entry cache, as a
 * statement's shape does not change between executions.
 */
public final class MergeSpec {

    /** Symbolic index of derived column 0. */
    public static final int DERIVED = 1 << 24;

    private static final int FLOAT4 = 700;

    private final int derivedColumns;
    private final int fixedColumns;
    private final List<SortKey> orderBy;
    private final List<SortKey> groupBy;
    private final boolean groupsSorted;
    private final List<Aggregate> aggregates;
    private final boolean distinct;
    private final Optional<HavingPredicate> having;
    private final boolean havingParameters;
    private final PaginationSpec pagination;
    private final boolean disjointUnits;
    private final Optional<String> refusal;
    private final List<Aggregate> visibleDistinctAggregates;
    private volatile Compiled compiled;

    private record Compiled(int columnCount, TextCollation collation, MergeStep step) {
    }

    MergeSpec(int derivedColumns, List<SortKey> orderBy, List<SortKey> groupBy, boolean groupsSorted,
              List<Aggregate> aggregates, boolean distinct, Optional<HavingPredicate> having, boolean havingParameters,
              PaginationSpec pagination, boolean disjointUnits, Optional<String> refusal) {
        this.derivedColumns = derivedColumns;
        this.orderBy = List.copyOf(orderBy);
        this.groupBy = List.copyOf(groupBy);
        this.groupsSorted = groupsSorted;
        this.aggregates = List.copyOf(aggregates);
        this.distinct = distinct;
        this.having = having;
        this.havingParameters = havingParameters;
        this.pagination = pagination;
        this.disjointUnits = disjointUnits;
        this.refusal = refusal;
        List<Aggregate> visibleDistinct = new ArrayList<>();
        for (Aggregate aggregate : aggregates) {
            boolean distinctArgument = aggregate instanceof Aggregate.CountDistinct
                    || aggregate instanceof Aggregate.SumDistinct || aggregate instanceof Aggregate.AvgDistinct;
            if (distinctArgument && aggregate.column() < DERIVED) {
                visibleDistinct.add(aggregate);
            }
        }
        this.visibleDistinctAggregates = List.copyOf(visibleDistinct);
        int fixed = 0;
        for (SortKey key : orderBy) {
            fixed = Math.max(fixed, fixedWidth(key.column()));
        }
        for (SortKey key : groupBy) {
            fixed = Math.max(fixed, fixedWidth(key.column()));
        }
        for (Aggregate aggregate : aggregates) {
            fixed = Math.max(fixed, fixedWidth(aggregate.column()));
        }
        this.fixedColumns = fixed;
    }

    private static int fixedWidth(int column) {
        return column >= DERIVED ? 0 : column + 1;
    }

    /** How many columns the rewriter appended to each shard row. */
    public int derivedColumns() {
        return derivedColumns;
    }

    /** Columns the client sees of {@code total} shard columns. */
    public int visibleColumns(int total) {
        return total - derivedColumns;
    }

    public PaginationSpec pagination() {
        return pagination;
    }

    /** Whether a UNION ALL needs every unit to read its own actual tables (else rows would repeat). */
    public boolean disjointUnits() {
        return disjointUnits;
    }

    /**
     * The DISTINCT aggregates of the select list ({@code COUNT/SUM/AVG(DISTINCT x)}): their shard
     * column holds x itself, so its RowDescription field is x's, not the aggregate's. Their
     * columns are fixed (an aggregate after a {@code *} is refused).
     */
    public List<Aggregate> visibleDistinctAggregates() {
        return visibleDistinctAggregates;
    }

    /** Whether the HAVING reads parameters, so that the merge is bound per execution. */
    public boolean havingParameters() {
        return havingParameters;
    }

    /**
     * The plan over shard rows of {@code columnCount} columns.
     *
     * @param collation the text collation of the shards' sort, applied to every column (C compares bytes)
     * @throws RouteException 0A000 when the shards' rows cannot be merged (too few columns, an AVG of
     *                        {@code real} whose partial sums the shards computed in single precision,
     *                        a SELECT DISTINCT sorted by an expression the rewriter could not place)
     */
    public MergePlan plan(int[] typeOids, long offset, OptionalLong limit, TextCollation collation,
                          RouteParameters parameters) {
        if (refusal.isPresent()) {
            throw new RouteException("0A000", refusal.get());
        }
        int columnCount = typeOids.length;
        int visible = columnCount - derivedColumns;
        if (visible < fixedColumns || visible < 0) {
            throw new RouteException("0A000", "the shards returned " + columnCount + " columns where the merge needs at least "
                    + (fixedColumns + derivedColumns));
        }
        MergePlan.Builder builder = MergePlan.builder(columnCount).visibleColumns(visible);
        for (SortKey key : orderBy) {
            builder.orderBy(resolve(key, visible));
        }
        for (SortKey key : groupBy) {
            if (groupsSorted) {
                builder.groupBySorted(resolve(key, visible));
            } else {
                builder.groupBy(resolve(key, visible));
            }
        }
        for (Aggregate aggregate : aggregates) {
            Aggregate resolved = resolve(aggregate, visible);
            if (resolved instanceof Aggregate.Avg avg && typeOids[avg.sumColumn()] == FLOAT4) {
                throw realAverage();
            }
            builder.aggregate(resolved);
        }
        if (distinct) {
            builder.distinct();
        }
        having.ifPresent(predicate -> builder.having(resolve(predicate, visible, parameters)));
        if (offset > 0) {
            builder.offset(offset);
        }
        limit.ifPresent(builder::limit);
        if (collation != TextCollation.C) {
            for (int i = 0; i < columnCount; i++) {
                builder.collation(i, collation);
            }
        }
        return builder.build();
    }

    /** The compiled merge for shard rows of these types, with this execution's LIMIT and OFFSET. */
    public MergeStep step(int[] typeOids, long offset, OptionalLong limit, TextCollation collation,
                          RouteParameters parameters) {
        if (havingParameters) {
            return MergeEngine.compile(plan(typeOids, offset, limit, collation, parameters));
        }
        Compiled cached = compiled;
        if (cached == null || cached.columnCount != typeOids.length || cached.collation != collation) {
            cached = new Compiled(typeOids.length, collation,
                    MergeEngine.compile(plan(typeOids, 0, OptionalLong.empty(), collation, parameters)));
            compiled = cached;
        } else {
            checkTypes(typeOids);
        }
        return offset == 0 && limit.isEmpty() ? cached.step : MergeEngine.withPagination(cached.step, offset, limit);
    }

    private void checkTypes(int[] typeOids) {
        int visible = typeOids.length - derivedColumns;
        for (Aggregate aggregate : aggregates) {
            if (aggregate instanceof Aggregate.Avg avg && typeOids[column(avg.sumColumn(), visible)] == FLOAT4) {
                throw realAverage();
            }
        }
    }

    private static RouteException realAverage() {
        return new RouteException("0A000", "AVG of a real column over several shards is not supported: the shards"
                + " would sum real values in single precision; write AVG(x::float8)");
    }

    private static int column(int symbolic, int visible) {
        return symbolic >= DERIVED ? visible + (symbolic - DERIVED) : symbolic;
    }

    private static SortKey resolve(SortKey key, int visible) {
        return key.column() < DERIVED ? key : new SortKey(column(key.column(), visible), key.descending(), key.nullsFirst());
    }

    private static Aggregate resolve(Aggregate aggregate, int visible) {
        return switch (aggregate) {
            case Aggregate.Count count -> new Aggregate.Count(column(count.column(), visible));
            case Aggregate.Sum sum -> new Aggregate.Sum(column(sum.column(), visible));
            case Aggregate.Min min -> new Aggregate.Min(column(min.column(), visible));
            case Aggregate.Max max -> new Aggregate.Max(column(max.column(), visible));
            case Aggregate.Avg avg -> new Aggregate.Avg(column(avg.column(), visible), column(avg.sumColumn(), visible),
                    column(avg.countColumn(), visible));
            case Aggregate.CountDistinct count -> new Aggregate.CountDistinct(column(count.column(), visible),
                    column(count.argumentColumn(), visible));
            case Aggregate.SumDistinct sum -> new Aggregate.SumDistinct(column(sum.column(), visible),
                    column(sum.argumentColumn(), visible));
            case Aggregate.AvgDistinct avg -> new Aggregate.AvgDistinct(column(avg.column(), visible),
                    column(avg.argumentColumn(), visible));
        };
    }

    private static HavingPredicate resolve(HavingPredicate predicate, int visible, RouteParameters parameters) {
        return switch (predicate) {
            case HavingPredicate.Comparison comparison -> new HavingPredicate.Comparison(
                    resolve(comparison.left(), visible, parameters), comparison.operator(),
                    resolve(comparison.right(), visible, parameters));
            case HavingPredicate.NullTest test -> new HavingPredicate.NullTest(column(test.column(), visible), test.negated());
            case HavingPredicate.And and -> new HavingPredicate.And(resolve(and.operands(), visible, parameters));
            case HavingPredicate.Or or -> new HavingPredicate.Or(resolve(or.operands(), visible, parameters));
            case HavingPredicate.Not not -> new HavingPredicate.Not(resolve(not.operand(), visible, parameters));
        };
    }

    private static List<HavingPredicate> resolve(List<HavingPredicate> predicates, int visible, RouteParameters parameters) {
        List<HavingPredicate> result = new ArrayList<>(predicates.size());
        for (HavingPredicate each : predicates) {
            result.add(resolve(each, visible, parameters));
        }
        return result;
    }

    private static HavingPredicate.Operand resolve(HavingPredicate.Operand operand, int visible, RouteParameters parameters) {
        return switch (operand) {
            case HavingPredicate.Column column -> new HavingPredicate.Column(column(column.index(), visible));
            case HavingPredicate.Constant constant -> constant.typeOid() == HavingTranslator.PARAMETER_TYPE
                    ? parameter(constant.text(), parameters) : constant;
        };
    }

    /** Binds {@code $n} or {@code $n::oid} to this execution's value. */
    private static HavingPredicate.Constant parameter(String text, RouteParameters parameters) {
        int cast = text.indexOf("::");
        int index = Integer.parseInt(text, 1, cast < 0 ? text.length() : cast, 10) - 1;
        int castType = cast < 0 ? 0 : Integer.parseInt(text, cast + 2, text.length(), 10);
        Object value = index < parameters.count() ? parameters.value(index) : null;
        if (value == null) {
            throw new RouteException("0A000", "HAVING comparing with a NULL parameter over several shards is not supported");
        }
        return switch (value) {
            case Integer number -> new HavingPredicate.Constant(number.toString(), castType == 0 ? 23 : castType);
            case Short number -> new HavingPredicate.Constant(number.toString(), castType == 0 ? 21 : castType);
            case Long number -> new HavingPredicate.Constant(number.toString(), castType == 0 ? 20 : castType);
            case BigInteger number -> new HavingPredicate.Constant(number.toString(), castType == 0 ? 1700 : castType);
            case BigDecimal number -> new HavingPredicate.Constant(number.toPlainString(), castType == 0 ? 1700 : castType);
            case Double number -> new HavingPredicate.Constant(number.toString(), castType == 0 ? 701 : castType);
            case Float number -> new HavingPredicate.Constant(number.toString(), castType == 0 ? 700 : castType);
            case Boolean flag -> new HavingPredicate.Constant(flag.toString(), castType == 0 ? 16 : castType);
            case LocalDateTime time -> new HavingPredicate.Constant(time.toString().replace('T', ' '),
                    castType == 0 ? 1114 : castType);
            case LocalDate date -> new HavingPredicate.Constant(date.toString(), castType == 0 ? 1082 : castType);
            case String string -> new HavingPredicate.Constant(string, castType);
            default -> throw new RouteException("0A000", "HAVING comparing with a parameter of type "
                    + value.getClass().getSimpleName() + " over several shards is not supported");
        };
    }

    /**
     * Whether the merge only reads the units one after another: no sort, group, aggregate, DISTINCT, HAVING, derived
     * column or refusal (pagination is the template's to say).
     */
    public boolean iteratesOnly() {
        return derivedColumns == 0 && orderBy.isEmpty() && groupBy.isEmpty() && aggregates.isEmpty() && !distinct
                && having.isEmpty() && refusal.isEmpty();
    }

    /** The symbolic plan, one line (derived columns as {@code d0, d1, ...}). */
    public String describe() {
        StringBuilder result = new StringBuilder("derived=").append(derivedColumns);
        if (!orderBy.isEmpty()) {
            result.append(" orderBy=").append(keys(orderBy));
        }
        if (!groupBy.isEmpty()) {
            result.append(" groupBy=").append(keys(groupBy)).append(groupsSorted ? " (sorted)" : " (unsorted)");
        }
        if (!aggregates.isEmpty()) {
            result.append(" aggregates=").append(aggregates.size());
        }
        if (distinct) {
            result.append(" distinct");
        }
        if (having.isPresent()) {
            result.append(" having");
        }
        if (refusal.isPresent()) {
            result.append(" refused");
        }
        return result.append(' ').append(pagination.describe()).toString();
    }

    private static String keys(List<SortKey> keys) {
        StringBuilder result = new StringBuilder("[");
        for (int i = 0; i < keys.size(); i++) {
            SortKey key = keys.get(i);
            result.append(i == 0 ? "" : ", ").append(key.column() >= DERIVED ? "d" + (key.column() - DERIVED) : "#" + key.column())
                    .append(key.descending() ? " DESC" : " ASC");
        }
        return result.append(']').toString();
    }
}
