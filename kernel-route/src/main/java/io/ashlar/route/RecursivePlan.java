package io.ashlar.route;

import io.ashlar.parser.SqlText;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.Conjunction;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.ShardingCondition;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableName;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.DataNode;
import io.ashlar.route.rule.NodeSet;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import io.ashlar.route.rule.SingleTable;

import java.util.ArrayList;
import java.util.List;

/**
 * Recursive planning, finished by PostgreSQL, for a read the {@link RouteEngine} refused because it spans shards (a
 * subquery, CTE or derived table over several shards, a join of tables that are not co-located, set operations,
 * window functions, DISTINCT ON, aggregates the proxy cannot merge). Citus's recursive planning is the model, in its
 * simplest form: every sharded table the statement reads becomes an <em>intermediate result</em> on one backend, the
 * coordinator, holding the rows of all its actual tables; the coordinator then runs the statement itself with each
 * sharded table's name replaced by its intermediate result, so that results, types, collations, NULL ordering and
 * errors are PostgreSQL's own.
 *
 * <p>The plan is made only after the route refused the statement (SQLSTATE 0A000): routes that succeed never reach
 * here and pay nothing for it. It declines (returns null) what it cannot answer exactly:
 * <ul>
 * <li>anything but a SELECT (writes across shards stay refused), and SELECT INTO;</li>
 * <li>an analysis with gaps (a table it did not see would be read from the coordinator's own rows only), but for
 * GROUPING SETS, ROLLUP and CUBE;</li>
 * <li>row locks (FOR UPDATE/SHARE would lock copies, not the rows), and sequence functions
 * (nextval/setval/currval/lastval belong to the sequences' own handling);</li>
 * <li>a schema-qualified table name other than {@code public}, and single tables on a data source that holds no
 * actual table of every sharded table read (the intermediate results are made {@code LIKE} an actual table of the
 * coordinator, for exact column types, modifiers and collations).</li>
 * </ul>
 * Stateless; a plan is made per execution (the intermediate results' names are unique per statement).
 */
public final class RecursivePlan {

    /**
     * One sharded table's intermediate result.
     *
     * @param table the sharded table
     * @param name the temporary table standing for it on the coordinator
     * @param like an actual table of it on the coordinator, whose columns the temporary table copies
     * @param nodes every actual table whose rows it holds
     * @param filter a condition on the actual table's columns every row the statement can use satisfies (pushed to the
     *        shards), or empty
     */
    public record Intermediate(ShardingTable table, String name, String like, List<DataNode> nodes, String filter) {

        public Intermediate(ShardingTable table, String name, String like, List<DataNode> nodes) {
            this(table, name, like, nodes, "");
        }

        /**
         * The temporary table, with the actual table's column names, types, modifiers, NOT NULL and collations (no
         * defaults, identities, generation expressions, constraints or indexes: the rows come from the actual tables
         * as they are). ON COMMIT DROP: it never outlives the transaction it was made in.
         */
        public String createSql() {
            return "CREATE TEMP TABLE " + name + " (LIKE " + SqlText.identifier(like) + ") ON COMMIT DROP";
        }

        /** What the coordinator runs to fill it from its own actual table: the rows never leave it. */
        public String insertSql(DataNode node) {
            return insertSql(node, "");
        }

        /**
         * @param columns empty for every column in the actual tables' order, or a column list ({@code ("a", "b")}) where
         *        the actual tables order their columns differently: binary COPY matches fields by position only
         */
        public String insertSql(DataNode node, String columns) {
            return "INSERT INTO " + name + columns + " " + select(node, columns);
        }

        private String select(DataNode node, String columns) {
            return "SELECT " + (columns.isEmpty() ? "*" : columns.substring(2, columns.length() - 1)) + " FROM " + SqlText.identifier(node.table())
                    + (filter.isEmpty() ? "" : " WHERE " + filter);
        }

        /** What the coordinator runs to receive another data source's rows, relayed as that data source sent them. */
        public String copyInSql() {
            return copyInSql("");
        }

        public String copyInSql(String columns) {
            return "COPY " + name + columns + " FROM STDIN (FORMAT binary)";
        }

        /** What a data source other than the coordinator runs to send an actual table's rows. */
        public String copyOutSql(DataNode node) {
            return copyOutSql(node, "");
        }

        public String copyOutSql(DataNode node, String columns) {
            // A query, never COPY table TO: that leaves out generated columns, which the intermediate result (LIKE
            // makes them plain columns) expects as the coordinator's INSERT ... SELECT * fills them.
            return "COPY (" + select(node, columns) + ") TO STDOUT (FORMAT binary)";
        }
    }

    private final String coordinator;
    private final List<Intermediate> intermediates;
    private final String finishingSql;
    private final java.util.Set<String> grouped;
    /** Per table name replaced in the finishing statement: its start and end in the client's text, then in the finishing one. */
    private final int[] replacements;

    private RecursivePlan(String coordinator, List<Intermediate> intermediates, String finishingSql, java.util.Set<String> grouped,
                          int[] replacements) {
        this.coordinator = coordinator;
        this.intermediates = intermediates;
        this.finishingSql = finishingSql;
        this.grouped = grouped;
        this.replacements = replacements;
    }

    /**
     * An error position (1-based, in characters) in the finishing statement, as a position in the client's statement:
     * the same character where the text is the client's, the table's name where it is an intermediate result's.
     */
    public int clientPosition(int position) {
        int p = position - 1;
        int delta = 0;
        for (int i = 0; i < replacements.length; i += 4) {
            if (p < replacements[i + 2]) {
                break;
            }
            if (p < replacements[i + 3]) {
                return replacements[i] + 1;
            }
            delta = replacements[i + 3] - replacements[i + 1];
        }
        return p - delta + 1;
    }

    /**
     * The column names the statement's GROUP BY clauses mention (lower case where unquoted), with {@link #ORDINAL} when
     * one groups by an output column's number; empty without GROUP BY. PostgreSQL lets a grouped primary key stand for
     * the other columns of its table (functional dependency): an intermediate result whose table's key is grouped needs
     * that key, which {@code LIKE} does not copy.
     */
    public java.util.Set<String> grouped() {
        return grouped;
    }

    /** In {@link #grouped()}: a GROUP BY item is an output column's number, which may be any column. */
    public static final String ORDINAL = "1";

    /** The data source that holds the intermediate results and finishes the statement. */
    public String coordinatorDataSource() {
        return coordinator;
    }

    public List<Intermediate> intermediates() {
        return intermediates;
    }

    /** The client's statement with the intermediate results in place of the sharded tables; parameters unchanged. */
    public String finishingSql() {
        return finishingSql;
    }

    /**
     * Plans a statement the route refused with 0A000.
     *
     * @param prefix what the intermediate results' names start with, unique to the statement's execution in its
     *        session (a lower-case SQL identifier)
     * @return the plan, or null when the statement cannot be finished this way (the refusal then stands)
     */
    public static RecursivePlan plan(AnalyzedStatement statement, ShardingRules rules, String prefix) {
        return plan(statement, rules, RouteParameters.NONE, prefix);
    }

    /**
     * Whether the analysis saw every table the statement reads: it has no gap, or only GROUPING SETS, ROLLUP or CUBE
     * (which the proxy's merge cannot do, and PostgreSQL does; the GROUP BY's expressions were scanned for subqueries
     * all the same).
     */
    private static boolean completeForPostgresql(AnalyzedStatement statement) {
        return statement.isComplete() || statement.gaps().equals(java.util.Set.of(io.ashlar.parser.statement.AnalysisGap.GROUPING_SETS));
    }

    /**
     * Plans a statement the route refused with 0A000, each intermediate result holding only the actual tables the
     * statement's conditions leave (the nodes the route computes for it: the union, over every block that reads the
     * table, of what that block's WHERE allows), so that {@code WHERE user_id = 3} copies one data source's tables.
     *
     * @param parameters the values bound to the statement's parameters (unknown ones leave every node)
     */
    public static RecursivePlan plan(AnalyzedStatement statement, ShardingRules rules, RouteParameters parameters, String prefix) {
        if (statement.kind() != StatementKind.SELECT || !(statement.body() instanceof SelectStatement select)
                || !completeForPostgresql(statement) || select.locking().isPresent() || rules.isEmpty()) {
            return null;
        }
        String sql = statement.sql();
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return null;
        }
        if (locksOrCallsSequences(tokens)) {
            return null;
        }
        List<TableReference> references = statement.tables();
        List<ShardingTable> tables = new ArrayList<>(2);
        int singleDataSource = -1;
        ShardingTable[] sharded = new ShardingTable[references.size()];
        for (int i = 0; i < references.size(); i++) {
            TableReference reference = references.get(i);
            TableName name = reference.name();
            String schema = name.schema().orElse("");
            if (!reference.isAccess()) {
                if (!reference.range().equals(reference.nameRange()) && rule(rules, name) instanceof ShardingTable) {
                    return null; // public.t_order.id: the qualifier would not name the intermediate result
                }
                continue;
            }
            if (reference.role() != TableRole.FROM) {
                return null; // SELECT INTO, a writing CTE
            }
            if (schema.equals("pg_catalog") || schema.equals("information_schema") || schema.isEmpty() && name.name().startsWith("pg_")) {
                continue;
            }
            RuleTable rule = rule(rules, name);
            int dataSource;
            switch (rule) {
                case ShardingTable table -> {
                    sharded[i] = table;
                    if (!tables.contains(table)) {
                        tables.add(table);
                    }
                    continue;
                }
                case BroadcastTable broadcast -> {
                    continue;
                }
                case SingleTable single -> dataSource = single.dataSourceIndex();
                case null -> {
                    if (!schema.isEmpty() && !schema.equals("public")) {
                        return null;
                    }
                    dataSource = rules.defaultDataSourceIndex();
                }
            }
            if (singleDataSource >= 0 && singleDataSource != dataSource) {
                return null;
            }
            singleDataSource = dataSource;
        }
        if (tables.isEmpty()) {
            return null;
        }
        StatementTables placed = new StatementTables(statement, rules, parameters, -1);
        try {
            placed.place();
        } catch (RouteException e) {
            placed = null;
        }
        List<List<DataNode>> needed = new ArrayList<>(tables.size());
        for (ShardingTable table : tables) {
            needed.add(nodes(table, placed));
        }
        int coordinator = singleDataSource >= 0 ? singleDataSource : coordinatorFor(tables, needed, rules);
        if (coordinator < 0) {
            return null;
        }
        String coordinatorName = rules.dataSources().get(coordinator);
        List<Intermediate> intermediates = new ArrayList<>(tables.size());
        for (int t = 0; t < tables.size(); t++) {
            ShardingTable table = tables.get(t);
            String like = null;
            for (DataNode node : table.dataNodes()) {
                if (node.dataSource().equals(coordinatorName)) {
                    like = node.table();
                    break;
                }
            }
            if (like == null) {
                return null;
            }
            intermediates.add(new Intermediate(table, prefix + "_" + (t + 1), like, needed.get(t), filter(statement, sharded, table)));
        }
        List<int[]> replacements = new ArrayList<>();
        String finishing = finishingSql(sql, tokens, references, sharded, tables, intermediates, replacements);
        int[] flat = new int[replacements.size() * 4];
        for (int i = 0; i < replacements.size(); i++) {
            System.arraycopy(replacements.get(i), 0, flat, i * 4, 4);
        }
        return new RecursivePlan(coordinatorName, List.copyOf(intermediates), finishing, grouped(tokens), flat);
    }

    /**
     * The actual tables of a sharded table the statement needs: those of the nodes its partition was placed on (a
     * partition's tables are aligned node for node), every one when the placement is unknown.
     */
    private static List<DataNode> nodes(ShardingTable table, StatementTables placed) {
        if (placed == null) {
            return table.dataNodes();
        }
        int partition = -1;
        for (int i = 0; i < placed.kinds.length; i++) {
            if (placed.ruleTables[i] == table && placed.partitionOf[i] >= 0) {
                partition = placed.partitionOf[i];
                break;
            }
        }
        if (partition < 0 || !placed.touched[partition] || placed.positions[partition].capacity() != table.nodeCount()) {
            return table.dataNodes();
        }
        NodeSet positions = placed.positions[partition];
        if (positions.isFull()) {
            return table.dataNodes();
        }
        List<DataNode> result = new ArrayList<>(positions.size());
        for (int node = positions.next(0); node >= 0; node = positions.next(node + 1)) {
            result.add(table.node(node));
        }
        return List.copyOf(result);
    }

    /**
     * The condition every row of {@code table} the statement can use satisfies: per occurrence of the table, the OR
     * over its block's WHERE disjuncts of the comparisons with literals of that disjunct on columns qualified by the
     * occurrence's name or alias (what the parser reads of a WHERE only ever widens it: parts it cannot read are
     * dropped from their conjunction, and a disjunct without any restricts nothing); the OR over the occurrences.
     * Empty (copy every row) when some occurrence is unrestricted, or sits in a block with an outer join, whose WHERE
     * may keep a row that fails it (NULL-extended).
     */
    private static String filter(AnalyzedStatement statement, ShardingTable[] sharded, ShardingTable table) {
        String sql = statement.sql();
        StringBuilder result = new StringBuilder();
        int occurrences = 0;
        for (int i = 0; i < sharded.length; i++) {
            if (sharded[i] != table) {
                continue;
            }
            String filter = occurrenceFilter(statement, statement.tables().get(i), sql);
            if (filter == null) {
                return "";
            }
            result.append(occurrences++ == 0 ? "" : " OR ").append(filter);
        }
        return occurrences > 1 ? "(" + result + ")" : result.toString();
    }

    private static String occurrenceFilter(AnalyzedStatement statement, TableReference reference, String sql) {
        QueryBlock block = statement.blocks().get(reference.block());
        if (block.outerJoin()) {
            return null;
        }
        List<Conjunction> disjuncts = block.where().disjuncts();
        StringBuilder result = new StringBuilder();
        for (int d = 0; d < disjuncts.size(); d++) {
            StringBuilder conjunction = new StringBuilder();
            for (ShardingCondition condition : disjuncts.get(d).conditions()) {
                ColumnReference column = condition.column();
                if (column.qualifier().isEmpty() || !StatementTables.qualifies(column, reference) || !literals(condition)) {
                    continue;
                }
                conjunction.append(conjunction.isEmpty() ? "" : " AND ").append(render(condition, sql));
            }
            if (conjunction.isEmpty()) {
                return null;
            }
            result.append(d == 0 ? "(" : " OR (").append(conjunction).append(')');
        }
        return disjuncts.size() > 1 ? "(" + result + ")" : result.toString();
    }

    private static boolean literals(ShardingCondition condition) {
        for (SqlValue value : condition.values()) {
            if (!(value instanceof LiteralValue)) {
                return false;
            }
        }
        return !condition.values().isEmpty();
    }

    private static String render(ShardingCondition condition, String sql) {
        String column = SqlText.identifier(condition.column().name());
        List<SqlValue> values = condition.values();
        return switch (condition.operator()) {
            case EQUAL -> column + " = " + values.get(0).range().text(sql);
            case LESS_THAN -> column + " < " + values.get(0).range().text(sql);
            case LESS_THAN_OR_EQUAL -> column + " <= " + values.get(0).range().text(sql);
            case GREATER_THAN -> column + " > " + values.get(0).range().text(sql);
            case GREATER_THAN_OR_EQUAL -> column + " >= " + values.get(0).range().text(sql);
            case BETWEEN -> column + " BETWEEN " + values.get(0).range().text(sql) + " AND " + values.get(1).range().text(sql);
            case IN -> {
                StringBuilder result = new StringBuilder(column).append(" IN (");
                for (int i = 0; i < values.size(); i++) {
                    result.append(i == 0 ? "" : ", ").append(values.get(i).range().text(sql));
                }
                yield result.append(')').toString();
            }
        };
    }

    private static RuleTable rule(ShardingRules rules, TableName name) {
        String schema = name.schema().orElse("");
        return schema.isEmpty() || schema.equals("public") ? rules.find(name.name()).orElse(null) : null;
    }

    /**
     * Of the data sources holding an actual table of every sharded table read, the one holding most of the actual
     * tables the statement needs (whose rows then never leave it); the default data source among equals, then the
     * first. -1 when none holds them all.
     */
    private static int coordinatorFor(List<ShardingTable> tables, List<List<DataNode>> needed, ShardingRules rules) {
        List<String> names = rules.dataSources();
        int result = -1;
        int best = -1;
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (!holdsAll(tables, name)) {
                continue;
            }
            int local = 0;
            for (List<DataNode> nodes : needed) {
                for (DataNode node : nodes) {
                    if (node.dataSource().equals(name)) {
                        local++;
                    }
                }
            }
            if (local > best || local == best && i == rules.defaultDataSourceIndex()) {
                result = i;
                best = local;
            }
        }
        return result;
    }

    private static boolean holdsAll(List<ShardingTable> tables, String dataSource) {
        for (ShardingTable table : tables) {
            boolean holds = false;
            for (DataNode node : table.dataNodes()) {
                if (node.dataSource().equals(dataSource)) {
                    holds = true;
                    break;
                }
            }
            if (!holds) {
                return false;
            }
        }
        return true;
    }

    /**
     * Each sharded table's name replaced by its intermediate result, aliased to the name the statement used
     * ({@code t_order} becomes {@code ashlar_ir_1_1 AS t_order}), so that qualified column references still resolve;
     * an alias of the statement's own stays. After {@code TABLE} (which takes no alias) the name alone.
     */
    private static String finishingSql(String sql, TokenList tokens, List<TableReference> references, ShardingTable[] sharded,
                                       List<ShardingTable> tables, List<Intermediate> intermediates, List<int[]> replacements) {
        List<TableReference> replaced = new ArrayList<>();
        List<ShardingTable> replacedTables = new ArrayList<>();
        for (int i = 0; i < references.size(); i++) {
            if (sharded[i] != null) {
                int at = replaced.size();
                while (at > 0 && replaced.get(at - 1).range().start() > references.get(i).range().start()) {
                    at--;
                }
                replaced.add(at, references.get(i));
                replacedTables.add(at, sharded[i]);
            }
        }
        StringBuilder result = new StringBuilder(sql.length() + 32 * intermediates.size());
        int copied = 0;
        for (int i = 0; i < replaced.size(); i++) {
            TableReference reference = replaced.get(i);
            Intermediate intermediate = intermediates.get(tables.indexOf(replacedTables.get(i)));
            int start = reference.range().start();
            result.append(sql, copied, start);
            int finishingStart = result.length();
            result.append(intermediate.name());
            if (reference.alias().isEmpty() && !afterTableKeyword(tokens, start)) {
                result.append(" AS ").append(reference.nameRange().text(sql));
            }
            copied = reference.range().end();
            replacements.add(new int[] {start, copied, finishingStart, result.length()});
        }
        return result.append(sql, copied, sql.length()).toString();
    }

    private static boolean afterTableKeyword(TokenList tokens, int position) {
        for (int i = 0, n = tokens.size(); i < n; i++) {
            if (tokens.start(i) >= position) {
                return i > 0 && tokens.kind(i - 1) == TokenKind.IDENTIFIER && tokens.textEqualsIgnoreCase(i - 1, "table");
            }
        }
        return false;
    }

    /** FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE / FOR KEY SHARE anywhere, or a call of a sequence function. */
    private static java.util.Set<String> grouped(TokenList tokens) {
        java.util.Set<String> result = null;
        for (int i = 0, n = tokens.size() - 1; i < n; i++) {
            if (!(tokens.kind(i) == TokenKind.IDENTIFIER && tokens.textEqualsIgnoreCase(i, "group") && tokens.is(i + 1, TokenKind.IDENTIFIER)
                    && tokens.textEqualsIgnoreCase(i + 1, "by"))) {
                continue;
            }
            if (result == null) {
                result = new java.util.HashSet<>();
            }
            int depth = 0;
            for (int j = i + 2; j <= n; j++) {
                TokenKind kind = tokens.kind(j);
                if (kind == TokenKind.LEFT_PAREN) {
                    depth++;
                } else if (kind == TokenKind.RIGHT_PAREN) {
                    if (--depth < 0) {
                        break;
                    }
                } else if (kind == TokenKind.SEMICOLON || depth == 0 && kind == TokenKind.IDENTIFIER && clauseAfterGroupBy(tokens, j)) {
                    break;
                } else if (kind == TokenKind.IDENTIFIER || kind == TokenKind.QUOTED_IDENTIFIER || kind == TokenKind.UNICODE_IDENTIFIER) {
                    result.add(tokens.identifier(j));
                } else if (kind == TokenKind.INTEGER && depth == 0 && (j == i + 2 || tokens.is(j - 1, TokenKind.COMMA))) {
                    result.add(ORDINAL);
                }
            }
        }
        return result == null ? java.util.Set.of() : java.util.Set.copyOf(result);
    }

    private static boolean clauseAfterGroupBy(TokenList tokens, int i) {
        return tokens.textEqualsIgnoreCase(i, "having") || tokens.textEqualsIgnoreCase(i, "order") || tokens.textEqualsIgnoreCase(i, "limit")
                || tokens.textEqualsIgnoreCase(i, "offset") || tokens.textEqualsIgnoreCase(i, "window") || tokens.textEqualsIgnoreCase(i, "union")
                || tokens.textEqualsIgnoreCase(i, "intersect") || tokens.textEqualsIgnoreCase(i, "except") || tokens.textEqualsIgnoreCase(i, "fetch")
                || tokens.textEqualsIgnoreCase(i, "for");
    }

    private static boolean locksOrCallsSequences(TokenList tokens) {
        for (int i = 0, n = tokens.size(); i < n; i++) {
            if (tokens.kind(i) != TokenKind.IDENTIFIER) {
                continue;
            }
            if (tokens.is(i + 1, TokenKind.LEFT_PAREN) && (tokens.textEqualsIgnoreCase(i, "nextval") || tokens.textEqualsIgnoreCase(i, "setval")
                    || tokens.textEqualsIgnoreCase(i, "currval") || tokens.textEqualsIgnoreCase(i, "lastval"))) {
                return true;
            }
            if (tokens.textEqualsIgnoreCase(i, "for") && tokens.is(i + 1, TokenKind.IDENTIFIER)
                    && (tokens.textEqualsIgnoreCase(i + 1, "update") || tokens.textEqualsIgnoreCase(i + 1, "share")
                    || tokens.textEqualsIgnoreCase(i + 1, "no") || tokens.textEqualsIgnoreCase(i + 1, "key"))) {
                return true;
            }
        }
        return false;
    }
}
