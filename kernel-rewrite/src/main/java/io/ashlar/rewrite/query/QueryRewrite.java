package io.ashlar.rewrite.query;

import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.plan.HavingPredicate;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AggregateFunction;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DistinctKind;
import io.ashlar.parser.statement.GroupByItem;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.OrderByItem;
import io.ashlar.parser.statement.Pagination;
import io.ashlar.parser.statement.PaginationValue;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.ProjectionKind;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SetOperation;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.rewrite.template.Edit;
import io.ashlar.rewrite.template.Identifiers;
import io.ashlar.rewrite.template.SqlTemplate;
import io.ashlar.rewrite.template.TemplateBuilder;
import io.ashlar.route.RouteException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Compiles a SELECT that runs on several shards into the shard SQL and the merge, as
 * ShardingSphere's sharding rewrite and merge do, and refuses (0A000) what cannot be answered
 * exactly from per-shard results:
 * <ul>
 *   <li>LIMIT n OFFSET m becomes LIMIT n+m on each shard (written {@code LIMIT ($1::int8 + $2::int8)}
 *       for parameters, so that the text does not depend on values); the proxy skips and stops.
 *       When the shards' row order cannot bound the groups (aggregates not ordered by the group
 *       keys, HAVING, DISTINCT aggregates), the shards get no LIMIT at all.</li>
 *   <li>Derived columns, appended after the select list as {@code , expr AS "__ashlar_dN"}: AVG's
 *       SUM and COUNT; ORDER BY and GROUP BY expressions that are not a select-list item before the
 *       first {@code *}; aggregates of HAVING and ORDER BY that are not selected. Never for the ORDER
 *       BY of a SELECT DISTINCT, where PostgreSQL requires the select-list items themselves (42P10).</li>
 *   <li>GROUP BY: the shards group, the proxy re-groups: while streaming when the shards sort by
 *       the group keys (the statement's ORDER BY starts with them, or it has none and the rewriter
 *       adds {@code ORDER BY} the keys), in memory otherwise.</li>
 *   <li>COUNT/SUM/AVG(DISTINCT x): the shards return x itself, grouped by the group keys and x;
 *       the proxy keeps the distinct values per group.</li>
 *   <li>HAVING is removed from the shard SQL and evaluated by the proxy ({@link HavingTranslator}).</li>
 * </ul>
 * Compile-time code, run once per statement.
 */
public final class QueryRewrite {

    private static final String DERIVED_ALIAS = "__ashlar_d";

    private final AnalyzedStatement statement;
    private final SelectStatement select;
    private final SqlTokens tokens;
    private final String table;
    private final boolean aggregated;
    private final int firstStar;
    private final List<Edit> edits = new ArrayList<>();
    private final List<Derived> derived = new ArrayList<>();
    private final Map<String, Integer> derivedByKey = new HashMap<>();
    private final List<Aggregate> aggregates = new ArrayList<>();
    private final List<SourceRange> distinctArguments = new ArrayList<>();
    private final Set<String> distinctArgumentKeys = new HashSet<>();
    private final int[] groupColumns;
    private final boolean distinctSelectList;
    private final List<String> unplacedDistinctOrder = new ArrayList<>();

    /** A derived select-list item: {@code prefix + sql[from, to) + suffix}. */
    private record Derived(String prefix, int from, int to, String suffix) {
    }

    private QueryRewrite(AnalyzedStatement statement, SelectStatement select) {
        this.statement = statement;
        this.select = select;
        this.tokens = SqlTokens.of(statement);
        this.table = firstTable(statement);
        this.aggregated = select.isAggregated() || select.having().isPresent();
        int star = select.projections().size();
        for (int i = 0; i < select.projections().size(); i++) {
            ProjectionKind kind = select.projections().get(i).kind();
            if (kind == ProjectionKind.STAR || kind == ProjectionKind.QUALIFIED_STAR) {
                star = i;
                break;
            }
        }
        this.firstStar = star;
        this.groupColumns = new int[select.groupBy().size()];
        this.distinctSelectList = select.distinct() == DistinctKind.DISTINCT && star == select.projections().size()
                && select.setOperation() == SetOperation.NONE;
    }

    /**
     * Compiles {@code statement}, a SELECT, for several shards.
     *
     * @throws RouteException 0A000 (or the error PostgreSQL gives for a bad LIMIT) when it cannot be
     *                        answered exactly
     */
    public static QueryPlan compile(AnalyzedStatement statement) {
        if (!(statement.body() instanceof SelectStatement select)) {
            throw new IllegalArgumentException("not a SELECT: " + statement.command());
        }
        return new QueryRewrite(statement, select).compile();
    }

    private QueryPlan compile() {
        if (!statement.isComplete()) {
            throw refused("a statement the proxy could not fully analyse " + statement.gaps());
        }
        if (select.distinct() == DistinctKind.DISTINCT_ON) {
            throw refused("SELECT DISTINCT ON");
        }
        if (select.pagination().withTies()) {
            throw refused("FETCH FIRST ... WITH TIES");
        }
        SetOperation setOperation = select.setOperation();
        if (setOperation != SetOperation.NONE) {
            checkSetOperation(setOperation);
        }
        checkProjections();
        if (aggregated) {
            projectionAggregates();
        }
        List<SortKey> orderBy = new ArrayList<>(select.orderBy().size());
        for (OrderByItem item : select.orderBy()) {
            int column = orderColumn(item);
            if (column >= 0) {
                orderBy.add(new SortKey(column, item.descending(), item.nullsFirst()));
            }
        }
        List<SortKey> groupBy = List.of();
        boolean groupsSorted = false;
        Optional<HavingPredicate> having = Optional.empty();
        boolean havingParameters = false;
        if (aggregated) {
            for (int i = 0; i < groupColumns.length; i++) {
                groupColumns[i] = groupColumn(select.groupBy().get(i));
            }
            if (select.having().isPresent()) {
                HavingTranslator.Result result = HavingTranslator.translate(tokens, select.having().get(),
                        this::havingOperandColumn, table);
                having = Optional.of(result.predicate());
                havingParameters = result.parameters();
            }
            addDistinctArgumentGrouping();
            select.having().ifPresent(this::removeHaving);
            if (groupColumns.length > 0) {
                List<SortKey> matching = orderMatchingGroups(orderBy);
                if (matching != null) {
                    groupBy = matching;
                    groupsSorted = true;
                } else if (select.orderBy().isEmpty()) {
                    groupBy = new ArrayList<>();
                    for (int column : groupColumns) {
                        groupBy.add(SortKey.ascending(column));
                    }
                    groupsSorted = true;
                    addGroupOrdering();
                } else {
                    groupBy = new ArrayList<>();
                    for (int column : groupColumns) {
                        groupBy.add(SortKey.ascending(column));
                    }
                }
            }
        }
        // The shards' first n+m groups hold the first n+m merged groups only when the shards sort by the
        // group keys and nothing later drops or merges groups (HAVING, DISTINCT, finer DISTINCT-aggregate rows).
        boolean pushDown = !aggregated || groupsSorted && distinctArguments.isEmpty() && select.having().isEmpty()
                && select.distinct() == DistinctKind.NONE;
        PaginationSpec pagination = pagination(pushDown);
        if (!derived.isEmpty()) {
            if (setOperation != SetOperation.NONE || select.valuesOnly() || select.projections().isEmpty()) {
                throw refused(setOperation != SetOperation.NONE
                        ? "ORDER BY an expression that is not an output column of a " + setOperation
                        : "ORDER BY or GROUP BY a column that is not selected from VALUES, TABLE or an empty select list");
            }
            edits.add(new Edit(select.projectionsEnd(), select.projectionsEnd(), this::writeDerivedColumns));
        }
        boolean distinct = select.distinct() == DistinctKind.DISTINCT || setOperation == SetOperation.UNION;
        MergeSpec merge = new MergeSpec(derived.size(), orderBy, groupBy, groupsSorted, aggregates, distinct, having,
                havingParameters, pagination, setOperation == SetOperation.UNION_ALL, unplacedDistinctOrder());
        TemplateBuilder builder = TemplateBuilder.of(statement, !statement.parameters().isEmpty());
        SqlTemplate template = new SqlTemplate(statement, builder.splice(edits), false, 0);
        return new QueryPlan(template, merge);
    }

    // ---- checks ----

    private void checkSetOperation(SetOperation setOperation) {
        if (setOperation != SetOperation.UNION && setOperation != SetOperation.UNION_ALL) {
            throw refused(setOperation == SetOperation.MIXED ? "a mix of set operations" : setOperation.name().replace('_', ' '));
        }
        if (aggregated) {
            throw refused("aggregates in a " + setOperation.name().replace('_', ' '));
        }
        TokenList list = tokens.list();
        for (int i = 0; i < list.size(); i++) {
            if (insidePagination(list.start(i))) {
                continue;
            }
            Keyword keyword = list.keyword(i);
            boolean perBranch = keyword == Keyword.GROUP || keyword == Keyword.HAVING || keyword == Keyword.LIMIT
                    || keyword == Keyword.OFFSET || keyword == Keyword.FETCH || keyword == Keyword.OVER
                    || keyword == Keyword.DISTINCT && setOperation == SetOperation.UNION_ALL;
            if (perBranch || tokens.isAggregateCall(i)) {
                throw refused(list.text(i).toUpperCase(Locale.ROOT) + " inside a branch of a "
                        + setOperation.name().replace('_', ' '));
            }
        }
    }

    private boolean insidePagination(int offset) {
        Pagination pagination = select.pagination();
        return pagination.limit().isPresent() && contains(pagination.limit().get().clauseRange(), offset)
                || pagination.offset().isPresent() && contains(pagination.offset().get().clauseRange(), offset);
    }

    private static boolean contains(SourceRange range, int offset) {
        return offset >= range.start() && offset < range.end();
    }

    private void checkProjections() {
        for (int i = 0; i < select.projections().size(); i++) {
            ProjectionItem item = select.projections().get(i);
            if (item.windowFunction()) {
                throw refused("window function " + item.expression());
            }
            if (item.containsAggregate() && item.aggregate().isEmpty()) {
                throw refused("aggregate expression " + item.expression());
            }
            if (item.aggregate().isPresent() && i > firstStar) {
                throw refused("aggregate " + item.expression() + " after *");
            }
        }
    }

    // ---- aggregates ----

    private void projectionAggregates() {
        for (int p = 0; p < firstStar; p++) {
            ProjectionItem item = select.projections().get(p);
            if (item.aggregate().isEmpty()) {
                continue;
            }
            io.ashlar.parser.statement.Aggregate aggregate = item.aggregate().get();
            SourceRange argument = aggregate.argumentRange();
            boolean distinct = aggregate.distinct() && aggregate.function() != AggregateFunction.MIN
                    && aggregate.function() != AggregateFunction.MAX;
            if (distinct) {
                aggregates.add(switch (aggregate.function()) {
                    case COUNT -> new Aggregate.CountDistinct(p, p);
                    case SUM -> new Aggregate.SumDistinct(p, p);
                    default -> new Aggregate.AvgDistinct(p, p);
                });
                replaceByArgument(item, argument);
                addDistinctArgument(argument);
                continue;
            }
            aggregates.add(switch (aggregate.function()) {
                case COUNT -> new Aggregate.Count(p);
                case SUM -> new Aggregate.Sum(p);
                case MIN -> new Aggregate.Min(p);
                case MAX -> new Aggregate.Max(p);
                case AVG -> new Aggregate.Avg(p, derive("SUM(", argument, ")"), derive("COUNT(", argument, ")"));
            });
        }
    }

    /** {@code count(DISTINCT x) AS c} becomes {@code x AS c}: the shards return the values themselves. */
    private void replaceByArgument(ProjectionItem item, SourceRange argument) {
        String alias = item.alias().isPresent() ? "" : " AS " + Identifiers.write(item.outputName(), false);
        SourceRange expression = item.expressionRange();
        edits.add(new Edit(expression.start(), expression.end(),
                builder -> builder.copy(argument.start(), argument.end()).text(alias)));
    }

    private void addDistinctArgument(SourceRange argument) {
        if (distinctArgumentKeys.add(tokens.normalized(argument.start(), argument.end()))) {
            distinctArguments.add(argument);
        }
    }

    /** The column of an aggregate call written in ORDER BY or HAVING: a selected one, or a derived one. */
    private int aggregateColumn(AggregateCall call) {
        int selected = selectedAggregate(call);
        if (selected >= 0) {
            return selected;
        }
        String key = "aggregate " + call.function() + (call.distinct() ? " distinct " : " ") + call.argument();
        Integer known = derivedByKey.get(key);
        if (known != null) {
            return known;
        }
        SourceRange argument = new SourceRange(call.argumentStart(), call.argumentEnd());
        boolean distinct = call.distinct() && call.function() != AggregateFunction.MIN
                && call.function() != AggregateFunction.MAX;
        int column;
        if (distinct) {
            column = newDerived(key, new Derived("", argument.start(), argument.end(), ""));
            addDistinctArgument(argument);
            aggregates.add(switch (call.function()) {
                case COUNT -> new Aggregate.CountDistinct(column, column);
                case SUM -> new Aggregate.SumDistinct(column, column);
                default -> new Aggregate.AvgDistinct(column, column);
            });
            return column;
        }
        String name = call.function().name();
        String written = name + "(" + (call.distinct() ? "DISTINCT " : "");
        column = newDerived(key, new Derived(written, argument.start(), argument.end(), ")"));
        aggregates.add(switch (call.function()) {
            case COUNT -> new Aggregate.Count(column);
            case SUM -> new Aggregate.Sum(column);
            case MIN -> new Aggregate.Min(column);
            case MAX -> new Aggregate.Max(column);
            case AVG -> new Aggregate.Avg(column, derive("SUM(", argument, ")"), derive("COUNT(", argument, ")"));
        });
        return column;
    }

    /** The select-list item (before any {@code *}) that is this aggregate call, or -1. */
    private int selectedAggregate(AggregateCall call) {
        for (int p = 0; p < firstStar; p++) {
            Optional<io.ashlar.parser.statement.Aggregate> selected = select.projections().get(p).aggregate();
            if (selected.isPresent() && selected.get().function() == call.function()
                    && selected.get().distinct() == call.distinct() && selected.get().star() == call.star()
                    && tokens.normalized(selected.get().argumentRange().start(), selected.get().argumentRange().end())
                    .equals(call.argument())) {
                return p;
            }
        }
        return -1;
    }

    // ---- columns of ORDER BY, GROUP BY, HAVING ----

    /** The column an ORDER BY item sorts by; -1 for one of a SELECT DISTINCT left to the shards to reject. */
    private int orderColumn(OrderByItem item) {
        if (item.ordinal() > 0) {
            return item.ordinal() - 1;
        }
        if (item.projectionIndex().isPresent()) {
            int p = item.projectionIndex().getAsInt();
            if (p < firstStar) {
                return p;
            }
            return expressionColumn(select.projections().get(p).expressionRange(), "ORDER BY");
        }
        if (distinctSelectList) {
            return distinctOrderColumn(item);
        }
        return expressionColumn(item.expressionRange(), "ORDER BY");
    }

    /**
     * An ORDER BY item of a SELECT DISTINCT that names no select-list item. PostgreSQL rejects it
     * (42P10, "for SELECT DISTINCT, ORDER BY expressions must appear in select list") unless its
     * analysis finds it equal to a select-list item after all; a derived column would both hide
     * the error and change which rows are distinct. So no column is derived: the shards, running
     * the user's select list, raise 42P10 themselves, and if they accept it the merge refuses,
     * not knowing which column sorts ({@link #unplacedDistinctOrder()}). A selected aggregate
     * written differently (argument spacing) is still found.
     */
    private int distinctOrderColumn(OrderByItem item) {
        SourceRange range = item.expressionRange();
        if (aggregated) {
            Optional<AggregateCall> call = tokens.aggregateCall(range.start(), range.end());
            if (call.isPresent()) {
                int selected = selectedAggregate(call.get());
                if (selected >= 0) {
                    return selected;
                }
            }
        }
        unplacedDistinctOrder.add(item.expression());
        return -1;
    }

    /**
     * For ORDER BY items of a SELECT DISTINCT that name no select-list item: when the shard SQL has
     * derived columns anyway (group keys, HAVING aggregates), the shards would accept the item as
     * one of them, so the proxy raises PostgreSQL's error itself; otherwise the message with which
     * the merge refuses, should the shards accept it.
     */
    private Optional<String> unplacedDistinctOrder() {
        if (unplacedDistinctOrder.isEmpty()) {
            return Optional.empty();
        }
        if (!derived.isEmpty()) {
            throw new RouteException("42P10", "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
        }
        return Optional.of("SELECT DISTINCT ordered by " + String.join(", ", unplacedDistinctOrder)
                + ", which the proxy cannot match to a select-list item, on sharded table " + table
                + " over several shards is not supported; write the select-list expression or its position");
    }

    private int groupColumn(GroupByItem item) {
        if (item.ordinal() > 0) {
            return item.ordinal() - 1;
        }
        if (item.projectionIndex().isPresent()) {
            int p = item.projectionIndex().getAsInt();
            if (p < firstStar) {
                return p;
            }
            return derive("", select.projections().get(p).expressionRange(), "");
        }
        return derive("", item.range(), "");
    }

    /**
     * The column of an ORDER BY or HAVING expression that names no select-list item: a derived
     * copy of it. In an aggregated query it must be an aggregate call (re-aggregated by the proxy)
     * or an expression of the group keys (equal on every shard row of a group).
     */
    private int expressionColumn(SourceRange range, String clause) {
        if (aggregated) {
            Optional<AggregateCall> call = tokens.aggregateCall(range.start(), range.end());
            if (call.isPresent()) {
                return aggregateColumn(call.get());
            }
        }
        if (tokens.containsAggregateOrWindow(range.start(), range.end())) {
            throw refused(clause + " " + range.text(statement.sql()));
        }
        return derive("", range, "");
    }

    private int havingOperandColumn(int from, int to) {
        Optional<AggregateCall> call = tokens.aggregateCall(from, to);
        if (call.isPresent()) {
            return aggregateColumn(call.get());
        }
        if (tokens.containsAggregateOrWindow(from, to)) {
            throw refused("HAVING expression " + statement.sql().substring(from, to));
        }
        String key = tokens.normalized(from, to);
        for (int p = 0; p < firstStar; p++) {
            SourceRange expression = select.projections().get(p).expressionRange();
            if (tokens.normalized(expression.start(), expression.end()).equals(key)) {
                return p;
            }
        }
        for (int i = 0; i < groupColumns.length; i++) {
            SourceRange range = select.groupBy().get(i).range();
            if (select.groupBy().get(i).ordinal() == 0 && tokens.normalized(range.start(), range.end()).equals(key)) {
                return groupColumns[i];
            }
        }
        return derive("", new SourceRange(from, to), "");
    }

    private int derive(String prefix, SourceRange range, String suffix) {
        String key = prefix + tokens.normalized(range.start(), range.end()) + suffix;
        Integer known = derivedByKey.get(key);
        return known != null ? known : newDerived(key, new Derived(prefix, range.start(), range.end(), suffix));
    }

    private int newDerived(String key, Derived column) {
        int result = MergeSpec.DERIVED + derived.size();
        derived.add(column);
        derivedByKey.put(key, result);
        return result;
    }

    private void writeDerivedColumns(TemplateBuilder builder) {
        for (int i = 0; i < derived.size(); i++) {
            Derived column = derived.get(i);
            builder.text(", ").text(column.prefix()).copy(column.from(), column.to()).text(column.suffix())
                    .text(" AS \"" + DERIVED_ALIAS + (i + 1) + "\"");
        }
    }

    /** How a shard SQL names a column in its ORDER BY: the ordinal, or a derived column's alias. */
    private static String orderReference(int column) {
        return column >= MergeSpec.DERIVED ? "\"" + DERIVED_ALIAS + (column - MergeSpec.DERIVED + 1) + "\""
                : String.valueOf(column + 1);
    }

    // ---- GROUP BY and HAVING clauses ----

    /** The statement's first ORDER BY keys when they are exactly the group keys, in some order; else null. */
    private List<SortKey> orderMatchingGroups(List<SortKey> orderBy) {
        int count = groupColumns.length;
        if (orderBy.size() < count) {
            return null;
        }
        Set<Integer> keys = new HashSet<>();
        for (int column : groupColumns) {
            keys.add(column);
        }
        Set<Integer> ordered = new HashSet<>();
        for (int i = 0; i < count; i++) {
            ordered.add(orderBy.get(i).column());
        }
        if (ordered.size() != count || !ordered.equals(keys)) {
            return null;
        }
        return orderBy.subList(0, count);
    }

    private void addGroupOrdering() {
        StringBuilder text = new StringBuilder(" ORDER BY ");
        Set<Integer> written = new HashSet<>();
        for (int column : groupColumns) {
            if (written.add(column)) {
                text.append(written.size() > 1 ? ", " : "").append(orderReference(column));
            }
        }
        edits.add(Edit.insert(select.orderByInsertPosition(), text.toString()));
    }

    /** Adds the DISTINCT aggregates' arguments to the shards' GROUP BY. */
    private void addDistinctArgumentGrouping() {
        if (distinctArguments.isEmpty()) {
            return;
        }
        int position;
        String lead;
        if (!select.groupBy().isEmpty()) {
            position = select.groupBy().get(select.groupBy().size() - 1).range().end();
            lead = ", ";
        } else {
            position = groupByPosition();
            lead = " GROUP BY ";
        }
        List<SourceRange> arguments = List.copyOf(distinctArguments);
        edits.add(new Edit(position, position, builder -> {
            for (int i = 0; i < arguments.size(); i++) {
                builder.text(i == 0 ? lead : ", ").copy(arguments.get(i).start(), arguments.get(i).end());
            }
        }));
    }

    /** Where a GROUP BY goes in the main query: before HAVING, WINDOW, ORDER BY, LIMIT ... at depth 0. */
    private int groupByPosition() {
        TokenList list = tokens.list();
        int depth = 0;
        int i = tokens.firstAtOrAfter(select.projectionsEnd());
        for (; i < list.size(); i++) {
            TokenKind kind = list.kind(i);
            if (kind == TokenKind.LEFT_PAREN || kind == TokenKind.LEFT_BRACKET) {
                depth++;
            } else if (kind == TokenKind.RIGHT_PAREN || kind == TokenKind.RIGHT_BRACKET) {
                if (depth == 0) {
                    break;
                }
                depth--;
            } else if (depth == 0 && (kind == TokenKind.SEMICOLON || endsFromClause(list.keyword(i)))) {
                break;
            }
        }
        return list.end(i - 1);
    }

    private static boolean endsFromClause(Keyword keyword) {
        return switch (keyword) {
            case GROUP, HAVING, WINDOW, ORDER, LIMIT, OFFSET, FETCH, FOR, UNION, INTERSECT, EXCEPT -> true;
            default -> false;
        };
    }

    private void removeHaving(SourceRange condition) {
        TokenList list = tokens.list();
        int keyword = tokens.firstAtOrAfter(condition.start()) - 1;
        if (!list.isKeyword(keyword, Keyword.HAVING)) {
            throw refused("HAVING");
        }
        edits.add(Edit.remove(withLeadingSpace(list.start(keyword)), condition.end()));
    }

    /** {@code start} moved back over the whitespace before it, so that a removed clause leaves no gap. */
    private int withLeadingSpace(int start) {
        String sql = statement.sql();
        int result = start;
        while (result > 0 && Character.isWhitespace(sql.charAt(result - 1))) {
            result--;
        }
        return result;
    }

    // ---- LIMIT / OFFSET ----

    private PaginationSpec pagination(boolean pushDown) {
        Pagination pagination = select.pagination();
        if (!pagination.isPresent()) {
            return PaginationSpec.NONE;
        }
        PaginationSpec result = PaginationSpec.of(pagination.offset(), pagination.limit());
        if (!pushDown) {
            pagination.limit().ifPresent(this::removeClause);
            pagination.offset().ifPresent(this::removeClause);
        } else if (pagination.offset().isPresent()) {
            removeClause(pagination.offset().get());
            pagination.limit().ifPresent(limit -> replaceLimit(limit, pagination.offset().get(), pagination.fetch()));
        }
        return result;
    }

    private void removeClause(PaginationValue value) {
        SourceRange clause = value.clauseRange();
        edits.add(Edit.remove(withLeadingSpace(clause.start()), clause.end()));
    }

    private void replaceLimit(PaginationValue limit, PaginationValue offset, boolean fetch) {
        SourceRange clause = limit.clauseRange();
        if (limit.value() instanceof LiteralValue limitLiteral && offset.value() instanceof LiteralValue offsetLiteral) {
            String count = String.valueOf(PaginationSpec.sum(PaginationSpec.literal(limitLiteral),
                    PaginationSpec.literal(offsetLiteral)));
            edits.add(new Edit(clause.start(), clause.end(),
                    builder -> builder.text(fetch ? "FETCH FIRST " + count + " ROWS ONLY" : "LIMIT " + count)));
            return;
        }
        edits.add(new Edit(clause.start(), clause.end(), builder -> {
            builder.text(fetch ? "FETCH FIRST (" : "LIMIT (");
            writeCount(builder, limit);
            builder.text(" + ");
            writeCount(builder, offset);
            builder.text(fetch ? ") ROWS ONLY" : ")");
        }));
    }

    private static void writeCount(TemplateBuilder builder, PaginationValue value) {
        if (value.value() instanceof LiteralValue literal) {
            builder.text(String.valueOf(PaginationSpec.literal(literal)));
        } else {
            builder.copy(value.value().range().start(), value.value().range().end()).text("::int8");
        }
    }

    // ---- messages ----

    private RouteException refused(String construct) {
        return new RouteException("0A000", construct + " on sharded table " + table
                + " over several shards is not supported");
    }

    private static String firstTable(AnalyzedStatement statement) {
        for (TableReference table : statement.tables()) {
            if (table.isAccess()) {
                return table.name().toString();
            }
        }
        return "?";
    }
}
