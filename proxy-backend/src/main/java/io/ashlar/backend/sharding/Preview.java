package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.metadata.LogicalSession;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.session.SessionIdentity;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.rewrite.MergeTemplate;
import io.ashlar.rewrite.RewriteResult;
import io.ashlar.rewrite.RewrittenUnit;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RecursivePlan;
import io.ashlar.route.RouteException;
import io.ashlar.route.rule.DataNode;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * ShardingSphere's {@code PREVIEW statement}: the data source and actual SQL of each unit the statement would run as,
 * and how the proxy would merge their rows, from the same route and rewrite a session runs (the statement is not
 * run). Parameters ({@code $1}) are unknown: a statement routed by one is shown on every unit it could go to.
 *
 * @param units one per unit, in the route's order
 * @param mergePlan the merge tree a query over several units runs through (empty when the units' results need none)
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/distsql/syntax/ral/">ShardingSphere RAL (PREVIEW)</a>
 */
public record Preview(List<Unit> units, Optional<String> mergePlan) {

    private static final RouteEngine ROUTER = new RouteEngine();

    /** One unit: its data source and the SQL it gets. */
    public record Unit(String dataSource, String sql) {
    }

    /**
     * The preview of {@code sql} on {@code database}, as a session of {@code identity} would run it.
     *
     * @throws StatementFailure when the text is no statement (42601) or the route refuses it (its SQLSTATE)
     */
    public static Preview of(LogicalDatabase database, SessionIdentity identity, String sql) throws StatementFailure {
        if (database.rules().isEmpty()) {
            return new Preview(List.of(new Unit(database.defaultDataSource().name(), sql)), Optional.empty());
        }
        Plan plan;
        try {
            plan = new LogicalSession(database, identity).adjust(database.plans().get(sql));
        } catch (SqlSyntaxException e) {
            throw new StatementFailure(ErrorFields.error("42601", e.getMessage()));
        }
        RewriteResult rewrite;
        try {
            RouteResult route = ROUTER.route(plan.statement(), RouteParameters.NONE, database.rules());
            rewrite = plan.rewriter().rewrite(route, RouteParameters.NONE);
        } catch (RouteException e) {
            RecursivePlan recursive = e.plannable() ? RecursivePlan.plan(plan.statement(), database.rules(), "ashlar_ir_1") : null;
            if (recursive == null) {
                throw new StatementFailure(ErrorFields.error(e.sqlState(), e.getMessage()));
            }
            return recursive(database, recursive);
        }
        if (rewrite.units().isEmpty()) {
            // The session's own statements (SET, SHOW, LISTEN) run as they are on the default data source.
            return new Preview(List.of(new Unit(database.defaultDataSource().name(), plan.statement().sql())),
                    Optional.empty());
        }
        List<Unit> units = new ArrayList<>(rewrite.units().size());
        // A routine's body is checked on the default data source alone (RoutineDefinition).
        boolean routine = rewrite.units().size() > 1 && RoutineDefinition.of(plan.statement()).isPresent();
        String checking = database.defaultDataSource().name();
        for (RewrittenUnit each : rewrite.units()) {
            String dataSource = each.unit().dataSource();
            units.add(new Unit(dataSource, routine && !dataSource.equals(checking) ? RoutineDefinition.UNCHECKED + "; " + each.sql() : each.sql()));
        }
        return new Preview(units, rewrite.merge().map(MergeTemplate::describe));
    }

    /**
     * A read planned recursively: what each data source runs to fill the intermediate results, in order, then the
     * statement the coordinator finishes (the names are those of a session's first such statement).
     */
    private static Preview recursive(LogicalDatabase database, RecursivePlan plan) {
        String coordinator = plan.coordinatorDataSource();
        List<Unit> units = new ArrayList<>();
        for (RecursivePlan.Intermediate each : plan.intermediates()) {
            units.add(new Unit(coordinator, each.createSql()));
        }
        for (RecursivePlan.Intermediate each : plan.intermediates()) {
            for (DataNode node : each.nodes()) {
                if (node.dataSource().equals(coordinator)) {
                    units.add(new Unit(coordinator, each.insertSql(node)));
                } else {
                    units.add(new Unit(node.dataSource(), each.copyOutSql(node)));
                    units.add(new Unit(coordinator, each.copyInSql()));
                }
            }
        }
        String keys = IntermediateKeys.sql(database, plan);
        if (!keys.isEmpty()) {
            units.add(new Unit(coordinator, keys));
        }
        units.add(new Unit(coordinator, plan.finishingSql()));
        return new Preview(units, Optional.of("RecursivePlan: the statement finished on " + coordinator + " over intermediate results"));
    }
}
