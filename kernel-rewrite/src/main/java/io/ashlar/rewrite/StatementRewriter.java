package io.ashlar.rewrite;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.DistinctKind;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SetOperation;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.rewrite.query.MergeSpec;
import io.ashlar.rewrite.query.PaginationSpec;
import io.ashlar.rewrite.query.QueryPlan;
import io.ashlar.rewrite.query.QueryRewrite;
import io.ashlar.rewrite.template.RenameTemplate;
import io.ashlar.rewrite.template.SqlTemplate;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteKind;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import io.ashlar.route.RouteResult.GeneratedKeys;
import io.ashlar.route.RouteUnit;
import io.ashlar.route.TableMapping;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Rewrites one analysed statement for each execution's route: one SQL text per route unit, by
 * splicing the user's text (everything between the replaced tokens, comments included, reaches
 * the backend unchanged), and the merge of a multi-shard query. ShardingSphere's
 * <a href="https://shardingsphere.apache.org/document/current/en/reference/sharding/rewrite/">SQL
 * rewrite</a> is the model: table and index names per unit, pagination and derived columns for the
 * merge, multi-row INSERT split per unit, generated keys added.
 *
 * <p>Keep one per analysed statement (next to the analysis in the plan cache): the templates are
 * compiled on first use per route kind, and each unit shape's SQL is cached, so a repeated
 * execution does no string building. Thread-safe; lazily built parts are immutable and published
 * through volatile fields (a race compiles twice, harmlessly).
 */
public final class StatementRewriter {

    private final AnalyzedStatement statement;
    private final int[] identity;
    private volatile SqlTemplate renames;
    private volatile QueryPlan query;
    private volatile RouteException queryRefusal;
    private volatile MergeTemplate fixedMerge;
    private volatile Boolean renamesTable;
    private volatile RouteException copyRefusal;
    private volatile boolean copyChecked;

    private StatementRewriter(AnalyzedStatement statement) {
        this.statement = statement;
        this.identity = SqlTemplate.identity(statement.parameterCount());
    }

    public static StatementRewriter of(AnalyzedStatement statement) {
        return new StatementRewriter(statement);
    }

    public AnalyzedStatement statement() {
        return statement;
    }

    /**
     * The SQL for each unit of {@code route} and, for a multi-shard query, its merge.
     *
     * @param parameters this execution's parameter values (LIMIT/OFFSET and HAVING parameters are
     *                   read from them; values not bound yet count as absent)
     * @throws RouteException 0A000 for a construct that cannot be answered exactly across the units
     */
    public RewriteResult rewrite(RouteResult route, RouteParameters parameters) {
        List<RouteUnit> units = route.units();
        Optional<GeneratedKeys> keys = route.generatedKeys();
        return switch (route.kind()) {
            case DEFAULT, SESSION, BROADCAST_WRITE -> keys.isEmpty() ? original(units) : renamed(route, keys);
            case SINGLE -> renamed(route, keys);
            case MULTI_WRITE -> {
                checkMultiUnit();
                if (units.size() > 1 && renamesTable()) {
                    throw refused("ALTER TABLE ... RENAME TO");
                }
                yield renamed(route, keys);
            }
            case MULTI_QUERY -> {
                if (statement.body() instanceof SelectStatement) {
                    yield query(route, parameters);
                }
                checkMultiUnit();
                if (statement.body() instanceof CopyStatement) {
                    checkCopyQuery();
                }
                yield renamed(route, keys);
            }
        };
    }

    private RewriteResult original(List<RouteUnit> units) {
        RewrittenUnit[] result = new RewrittenUnit[units.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = new RewrittenUnit(units.get(i), statement.sql(), identity);
        }
        return new RewriteResult(List.of(result), Optional.empty());
    }

    private RewriteResult renamed(RouteResult route, Optional<GeneratedKeys> keys) {
        if (keys.isPresent()) {
            checkGeneratedKeys(keys.get());
        } else if (unchangedOnEveryUnit(route.units())) {
            return original(route.units());
        }
        SqlTemplate template = renames;
        if (template == null) {
            template = RenameTemplate.compile(statement);
            renames = template;
        }
        List<RouteUnit> units = route.units();
        RewrittenUnit[] result = new RewrittenUnit[units.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = template.rewrite(units.get(i), keys);
        }
        return new RewriteResult(List.of(result), Optional.empty());
    }

    /** Whether no unit renames a table or takes a subset of the INSERT rows: then no template is needed. */
    private boolean unchangedOnEveryUnit(List<RouteUnit> units) {
        int rows = statement.body() instanceof InsertStatement insert ? insert.rows().size() : 0;
        for (int i = 0, n = units.size(); i < n; i++) {
            RouteUnit unit = units.get(i);
            if (unit.hasRowSubset() && unit.insertRows().length != rows) {
                return false;
            }
            List<TableMapping> tables = unit.tables();
            for (int k = 0, size = tables.size(); k < size; k++) {
                if (!tables.get(k).logicTable().equals(tables.get(k).actualTable())) {
                    return false;
                }
            }
        }
        return true;
    }

    private RewriteResult query(RouteResult route, RouteParameters parameters) {
        QueryPlan plan = queryPlan();
        MergeSpec spec = plan.merge();
        List<RouteUnit> units = route.units();
        if (spec.disjointUnits()) {
            checkDisjoint(units);
        }
        RewrittenUnit[] result = new RewrittenUnit[units.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = plan.template().rewrite(units.get(i), Optional.empty());
        }
        return new RewriteResult(List.of(result), Optional.of(mergeTemplate(spec, parameters)));
    }

    private QueryPlan queryPlan() {
        QueryPlan plan = query;
        if (plan != null) {
            return plan;
        }
        RouteException refusal = queryRefusal;
        if (refusal != null) {
            throw refusal;
        }
        try {
            plan = QueryRewrite.compile(statement);
        } catch (RouteException e) {
            queryRefusal = e;
            throw e;
        }
        query = plan;
        return plan;
    }

    private MergeTemplate mergeTemplate(MergeSpec spec, RouteParameters parameters) {
        PaginationSpec pagination = spec.pagination();
        if (pagination.isFixed() && !spec.havingParameters()) {
            MergeTemplate result = fixedMerge;
            if (result == null) {
                result = new MergeTemplate(spec, pagination.offset(RouteParameters.NONE),
                        pagination.limit(RouteParameters.NONE), RouteParameters.NONE);
                fixedMerge = result;
            }
            return result;
        }
        long offset = pagination.offset(parameters);
        OptionalLong limit = pagination.limit(parameters);
        return new MergeTemplate(spec, offset, limit, parameters);
    }

    // ---- checks ----

    private void checkMultiUnit() {
        if (!statement.isComplete()) {
            throw refused("a statement the proxy could not fully analyse " + statement.gaps());
        }
    }

    private void checkGeneratedKeys(GeneratedKeys keys) {
        if (!(statement.body() instanceof InsertStatement insert) || insert.rows().isEmpty()
                || insert.columnsEnd().isEmpty()) {
            throw new RouteException("0A000", "the proxy generates the key of table " + firstTable()
                    + " but cannot add it to an INSERT without a column list and VALUES rows; list the columns");
        }
        if (keys.values().size() != insert.rows().size()) {
            throw new IllegalArgumentException(keys.values().size() + " generated keys for " + insert.rows().size()
                    + " VALUES rows");
        }
    }

    /**
     * For UNION ALL the units' results are concatenated, so each top-level branch must read a
     * sharded table that every unit maps, and no unit may read an actual table another unit reads:
     * otherwise the same rows would come back from several units.
     */
    private void checkDisjoint(List<RouteUnit> units) {
        for (QueryBlock block : statement.blocks()) {
            if (block.parent() >= 0) {
                continue;
            }
            for (RouteUnit unit : units) {
                boolean mapped = false;
                for (TableReference table : statement.tablesIn(block.id())) {
                    mapped |= maps(unit, table.name().name());
                }
                if (!mapped) {
                    throw refused("UNION ALL with a branch that does not read a sharded table");
                }
            }
        }
        Set<String> seen = new HashSet<>();
        for (RouteUnit unit : units) {
            for (TableMapping mapping : unit.tables()) {
                if (!seen.add(unit.dataSource() + '\u0000' + mapping.logicTable() + '\u0000' + mapping.actualTable())) {
                    throw refused("UNION ALL over a route that reads actual table " + mapping.actualTable() + " twice");
                }
            }
        }
    }

    private static boolean maps(RouteUnit unit, String logicTable) {
        for (TableMapping mapping : unit.tables()) {
            if (mapping.logicTable().equals(logicTable)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the statement is {@code ALTER TABLE ... RENAME TO}, whose new name cannot follow the units. */
    private boolean renamesTable() {
        Boolean result = renamesTable;
        if (result == null) {
            result = false;
            if (statement.body() instanceof DdlStatement ddl && ddl.kind() == DdlKind.ALTER_TABLE) {
                TokenList tokens = Lexer.tokenize(statement.sql());
                for (int i = 0; i + 1 < tokens.size(); i++) {
                    result |= tokens.isKeyword(i, Keyword.RENAME) && tokens.isKeyword(i + 1, Keyword.TO);
                }
            }
            renamesTable = result;
        }
        return result;
    }

    /** COPY (query) TO over several shards concatenates their output: only a plain query keeps its meaning. */
    private void checkCopyQuery() {
        if (!copyChecked) {
            CopyStatement copy = (CopyStatement) statement.body();
            if (copy.query().isPresent()) {
                AnalyzedStatement inner = StatementAnalyzer.analyze(copy.query().get().text(statement.sql()));
                if (!(inner.body() instanceof SelectStatement select) || !inner.isComplete() || !select.orderBy().isEmpty()
                        || select.pagination().isPresent() || select.isAggregated() || select.having().isPresent()
                        || select.distinct() != DistinctKind.NONE || select.setOperation() != SetOperation.NONE) {
                    copyRefusal = refused("COPY (query) TO with ORDER BY, LIMIT, DISTINCT, aggregates or set operations");
                }
            }
            copyChecked = true;
        }
        RouteException refusal = copyRefusal;
        if (refusal != null) {
            throw refusal;
        }
    }

    private RouteException refused(String construct) {
        return new RouteException("0A000", construct + " on sharded table " + firstTable()
                + " over several shards is not supported");
    }

    private String firstTable() {
        for (TableReference each : statement.tables()) {
            if (each.isAccess()) {
                return each.name().toString();
            }
        }
        return "?";
    }
}
