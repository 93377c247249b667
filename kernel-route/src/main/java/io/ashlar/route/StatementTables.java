package io.ashlar.route;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.ColumnEquality;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.Conjunction;
import io.ashlar.parser.statement.DeleteStatement;
import io.ashlar.parser.statement.MergeStatement;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SetOperation;
import io.ashlar.parser.statement.ShardingCondition;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableName;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.ColumnConstraint;
import io.ashlar.route.rule.NodeSet;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import io.ashlar.route.rule.ShardingValues;
import io.ashlar.route.rule.SingleTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The tables of one statement seen through the rules, and where they must run: every table occurrence classified
 * (sharded, broadcast, single, catalog, unknown), sharded tables grouped into partitions (one table, or tables of a
 * binding group that the statement joins node to node, whose nodes line up position by position), each partition's
 * nodes computed from the conditions of every query block that reads it, and the route units built from them.
 *
 * <p>Tables of a binding group are joined node to node when the statement equates their binding keys
 * ({@link ShardingTable#bindingKey()}: the sharding columns that pick the actual table), as ShardingSphere routes the
 * binding join {@code t_order o JOIN t_order_item i ON o.order_id = i.order_id} with the database sharded by
 * {@code user_id}: the declaration promises that an order and its items share their other sharding values, so the
 * items of an order live on its node. The first table of a partition is its primary table; each unit names, for every
 * bound table, the actual table at the same position on the same data source, and a condition on any bound table's
 * sharding column narrows the route of all of them. Tables of a binding group joined otherwise, or not joined at all,
 * are routed as unrelated tables, each its own partition. Several partitions can be answered only where they all lie
 * on one data source (the cartesian product of their nodes there pairs every row with every row); across data
 * sources the statement is refused, since rows on different data sources never meet.
 *
 * <p>Conditions apply to the occurrences of their own block only, as {@link QueryBlock} says; a block's route is the
 * union over its disjuncts, a disjunct's is the intersection over the partition's tables in the block, and a
 * condition on a column reaches a table also through the block's join equalities ({@code o.user_id = u.id AND
 * u.id = 5} routes {@code o} by {@code user_id = 5}). The union over blocks covers every row any block can need.
 *
 * <p>One instance per routing call; not thread-safe.
 */
final class StatementTables {

    static final int NONE = 0;

    static final int SHARDED = 1;

    static final int BROADCAST = 2;

    static final int SINGLE = 3;

    static final int CATALOG = 4;

    static final int UNKNOWN = 5;

    final AnalyzedStatement statement;

    final ShardingRules rules;

    final RouteParameters parameters;

    final List<TableReference> references;

    /** Per occurrence: NONE (not accessed), SHARDED, BROADCAST, SINGLE, CATALOG or UNKNOWN. */
    final int[] kinds;

    /** Per occurrence: the rule table, or null. */
    final RuleTable[] ruleTables;

    /** Per occurrence: its partition, or -1. */
    final int[] partitionOf;

    /** Per partition: its distinct tables, in order of first occurrence. */
    final List<List<ShardingTable>> partitions = new ArrayList<>(2);

    /** Per partition: the nodes the statement needs (null until computed). */
    NodeSet[] positions;

    /** Per partition: whether some block actually reads it (not only an excluded occurrence). */
    boolean[] touched;

    boolean hasBroadcast;

    /** Data source index of single and unknown tables, -1 when there are none. */
    int singleDataSource = -1;

    /** The occurrence that fixed {@link #singleDataSource}. */
    int singleOccurrence = -1;

    /** An occurrence joined to another of its partition in its block other than node to node, or -1. */
    int unalignedJoin = -1;

    /** The occurrence {@link #unalignedJoin} is joined to. */
    int unalignedPartner = -1;

    /**
     * A table the statement creates (CREATE TABLE, CREATE VIEW, SELECT INTO) that no rule or catalog knows yet, or
     * -1: it is made where the statement's other tables are, by default on the default data source.
     */
    int newTable = -1;

    private final int excluded;

    /** The statement's tokens, read when a FROM list must be (null until then). */
    private TokenList tokens;

    /** Per block: its FROM list (null until read). */
    private FromClause[] fromClauses;

    /** Per block: the equalities its USING and NATURAL joins imply (null until computed). */
    private List<List<ColumnEquality>> usingEqualities;

    /**
     * @param excluded an occurrence left out of the conditions (the target of an INSERT, routed by its rows), or -1
     */
    StatementTables(AnalyzedStatement statement, ShardingRules rules, RouteParameters parameters, int excluded) {
        this.statement = statement;
        this.rules = rules;
        this.parameters = parameters;
        this.references = statement.tables();
        this.excluded = excluded;
        int count = references.size();
        kinds = new int[count];
        ruleTables = new RuleTable[count];
        partitionOf = new int[count];
        for (int i = 0; i < count; i++) {
            partitionOf[i] = -1;
            TableReference reference = references.get(i);
            if (!reference.isAccess()) {
                continue;
            }
            classify(i, reference);
        }
        if (partitions.size() > 1) {
            mergeBindingTables();
        }
    }

    private void classify(int occurrence, TableReference reference) {
        TableName name = reference.name();
        String schema = name.schema().orElse("");
        if (schema.equals("pg_catalog") || schema.equals("information_schema")) {
            kinds[occurrence] = CATALOG;
            return;
        }
        RuleTable rule = schema.isEmpty() || schema.equals("public") ? rules.find(name.name()).orElse(null) : null;
        ruleTables[occurrence] = rule;
        switch (rule) {
            case null -> {
                if (schema.isEmpty() && name.name().startsWith("pg_")) {
                    kinds[occurrence] = CATALOG;
                } else {
                    kinds[occurrence] = UNKNOWN;
                    if (reference.role() == TableRole.DDL_TARGET) {
                        newTable = occurrence;
                    } else if (reference.role() != TableRole.DDL_REFERENCE) {
                        placeSingle(occurrence, rules.defaultDataSourceIndex());
                    }
                }
            }
            case ShardingTable table -> {
                kinds[occurrence] = SHARDED;
                partitionOf[occurrence] = partitionFor(table);
            }
            case BroadcastTable broadcast -> {
                kinds[occurrence] = BROADCAST;
                hasBroadcast = true;
            }
            case SingleTable single -> {
                kinds[occurrence] = SINGLE;
                placeSingle(occurrence, single.dataSourceIndex());
            }
        }
    }

    private void placeSingle(int occurrence, int dataSource) {
        if (singleDataSource < 0) {
            singleDataSource = dataSource;
            singleOccurrence = occurrence;
        } else if (singleDataSource != dataSource) {
            throw new RouteException("0A000", "tables " + describe(singleOccurrence) + " and " + describe(occurrence)
                    + " live on different data sources; a statement can only combine unsharded tables of one data source");
        }
    }

    /** {@code t_config (on ds_1)}. */
    String describe(int occurrence) {
        String name = references.get(occurrence).name().toString();
        if (kinds[occurrence] == SINGLE) {
            return name + " (on " + ((SingleTable) ruleTables[occurrence]).dataSource() + ")";
        }
        if (kinds[occurrence] == UNKNOWN) {
            return name + " (no rule names it: looked for on " + rules.defaultDataSource() + ")";
        }
        return name;
    }

    private int partitionFor(ShardingTable table) {
        for (int p = 0; p < partitions.size(); p++) {
            if (partitions.get(p).get(0) == table) {
                return p;
            }
        }
        List<ShardingTable> members = new ArrayList<>(2);
        members.add(table);
        partitions.add(members);
        return partitions.size() - 1;
    }

    /**
     * Puts tables of one binding group into one partition where the statement joins them node to node (on their
     * binding keys, in a block or by a correlated subquery) and nowhere joins them otherwise. The target of an INSERT
     * (whose rows are checked by the INSERT route) joins its binding group's partition always, and so do the tables
     * of DDL and maintenance statements, which join nothing and run on every node of each.
     */
    private void mergeBindingTables() {
        boolean joinless = statement.kind() == StatementKind.DDL || statement.kind() == StatementKind.OTHER && !statement.command().equals("explain");
        int count = partitions.size();
        int[] root = new int[count];
        boolean merged = false;
        for (int p = 0; p < count; p++) {
            root[p] = p;
        }
        for (int p = 0; p < count; p++) {
            int group = partitionTable(p).bindingGroup();
            for (int q = p + 1; q < count && group >= 0; q++) {
                if (partitionTable(q).bindingGroup() != group || find(root, p) == find(root, q)) {
                    continue;
                }
                boolean target = excluded >= 0 && (partitionOf[excluded] == p || partitionOf[excluded] == q);
                if (joinless || target || bindingAligned(p, q, group)) {
                    root[find(root, q)] = find(root, p);
                    merged = true;
                }
            }
        }
        if (!merged) {
            return;
        }
        int[] renumbered = new int[count];
        Arrays.fill(renumbered, -1);
        List<List<ShardingTable>> result = new ArrayList<>(count);
        for (int p = 0; p < count; p++) {
            int r = find(root, p);
            if (renumbered[r] < 0) {
                renumbered[r] = result.size();
                result.add(new ArrayList<>(2));
            }
            result.get(renumbered[r]).addAll(partitions.get(p));
        }
        for (int i = 0; i < partitionOf.length; i++) {
            if (partitionOf[i] >= 0) {
                partitionOf[i] = renumbered[find(root, partitionOf[i])];
            }
        }
        partitions.clear();
        partitions.addAll(result);
    }

    private static int find(int[] root, int p) {
        int result = p;
        while (root[result] != result) {
            result = root[result];
        }
        return result;
    }

    /**
     * Whether partitions {@code p} and {@code q} (tables of binding group {@code group}) are joined node to node
     * somewhere and differently nowhere. In a block, occurrences of the group are clustered by such
     * joins (so that {@code a = b} and {@code b = c} align {@code a} with {@code c}); across blocks a subquery
     * correlated through all sharding columns aligns.
     */
    private boolean bindingAligned(int p, int q, int group) {
        boolean result = false;
        List<QueryBlock> blocks = statement.blocks();
        for (int b = 0; b < blocks.size(); b++) {
            QueryBlock block = blocks.get(b);
            int[] cluster = new int[kinds.length];
            Arrays.fill(cluster, -1);
            boolean hasP = false;
            boolean hasQ = false;
            for (int i = 0; i < kinds.length; i++) {
                if (kinds[i] != SHARDED || i == excluded || references.get(i).block() != b || shardingTable(i).bindingGroup() != group) {
                    continue;
                }
                hasP |= partitionOf[i] == p;
                hasQ |= partitionOf[i] == q;
                cluster[i] = i;
                for (int j = 0; j < i; j++) {
                    if (cluster[j] >= 0 && cluster[j] != cluster[i] && aligned(i, j, block)) {
                        relabel(cluster, cluster[i], cluster[j]);
                    }
                }
            }
            if (!hasP || !hasQ) {
                continue;
            }
            for (int i = 0; i < kinds.length; i++) {
                for (int j = 0; j < kinds.length; j++) {
                    if (cluster[i] >= 0 && cluster[j] >= 0 && partitionOf[i] == p && partitionOf[j] == q) {
                        if (cluster[i] != cluster[j]) {
                            return false;
                        }
                        result = true;
                    }
                }
            }
        }
        return result || correlatedAcrossBlocks(p, q);
    }

    private static void relabel(int[] cluster, int from, int to) {
        for (int k = 0; k < cluster.length; k++) {
            if (cluster[k] == from) {
                cluster[k] = to;
            }
        }
    }

    private boolean correlatedAcrossBlocks(int p, int q) {
        List<QueryBlock> blocks = statement.blocks();
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i] != SHARDED || i == excluded || partitionOf[i] != p && partitionOf[i] != q) {
                continue;
            }
            int other = partitionOf[i] == p ? q : p;
            QueryBlock block = blocks.get(references.get(i).block());
            for (int ancestor = block.parent(); ancestor >= 0; ancestor = blocks.get(ancestor).parent()) {
                for (int j = 0; j < kinds.length; j++) {
                    if (kinds[j] == SHARDED && j != excluded && partitionOf[j] == other && references.get(j).block() == ancestor
                            && ShardedConstructs.joinedNodeToNode(this, i, j, block.joinEqualities())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Whether two occurrences of one block are joined node to node ({@link ShardedConstructs#joinedNodeToNode}) by the
     * block's join equalities or by its USING and NATURAL joins: their rows then meet only on the same node.
     */
    boolean aligned(int i, int j, QueryBlock block) {
        if (ShardedConstructs.joinedNodeToNode(this, i, j, block.joinEqualities())) {
            return true;
        }
        List<ColumnEquality> implied = usingEqualities(block);
        if (implied.isEmpty()) {
            return false;
        }
        List<ColumnEquality> all = new ArrayList<>(block.joinEqualities());
        all.addAll(implied);
        return ShardedConstructs.joinedNodeToNode(this, i, j, all);
    }

    /**
     * The equalities of a block's {@code USING (col, ...)} and {@code NATURAL} joins, which the analyzer does not
     * list: the right side's table equals the one left-side table that has the column as a sharding column. (A
     * NATURAL join joins on every common column, so on every sharding column the two tables share.)
     */
    List<ColumnEquality> usingEqualities(QueryBlock block) {
        if (usingEqualities == null) {
            usingEqualities = new ArrayList<>(statement.blocks().size());
            for (int b = 0; b < statement.blocks().size(); b++) {
                usingEqualities.add(null);
            }
        }
        List<ColumnEquality> result = usingEqualities.get(block.id());
        if (result != null) {
            return result;
        }
        result = readUsingEqualities(block.id());
        usingEqualities.set(block.id(), result);
        return result;
    }

    private List<ColumnEquality> readUsingEqualities(int block) {
        boolean candidates = false;
        for (int i = 0; i < kinds.length && !candidates; i++) {
            candidates = kinds[i] == SHARDED && i != excluded && references.get(i).block() == block && references.get(i).role() == TableRole.FROM;
        }
        if (!candidates || !mayJoinByName()) {
            return List.of();
        }
        FromClause from = fromClause(block);
        List<ColumnEquality> result = new ArrayList<>(2);
        for (FromClause.Join join : from.joins()) {
            if (!join.natural() && join.using().isEmpty()) {
                continue;
            }
            for (int right = 0; right < kinds.length; right++) {
                if (!isShardedIn(right, block) || !join.inRight(references.get(right).range().start())) {
                    continue;
                }
                ShardingTable rightTable = shardingTable(right);
                List<String> columns = join.natural() ? rightTable.shardingColumns() : join.using();
                for (String column : columns) {
                    if (rightTable.columnId(column) < 0) {
                        continue;
                    }
                    int left = -1;
                    for (int i = 0; i < kinds.length; i++) {
                        if (isShardedIn(i, block) && join.inLeft(references.get(i).range().start()) && shardingTable(i).columnId(column) >= 0) {
                            left = left < 0 ? i : -2;
                        }
                    }
                    if (left >= 0) {
                        result.add(new ColumnEquality(qualified(left, column), qualified(right, column)));
                    }
                }
            }
        }
        return List.copyOf(result);
    }

    private boolean isShardedIn(int occurrence, int block) {
        return kinds[occurrence] == SHARDED && occurrence != excluded && references.get(occurrence).block() == block;
    }

    private ColumnReference qualified(int occurrence, String column) {
        TableReference reference = references.get(occurrence);
        return new ColumnReference(Optional.empty(), Optional.of(reference.exposedName()), column, reference.nameRange());
    }

    /**
     * Whether the text has a USING or NATURAL at all: most statements do not, and then no FROM list need be read.
     * This runs on every route of a join whose tables the join equalities alone do not align (TPC-C's
     * {@code bmsql_customer JOIN bmsql_warehouse ON (w_id = c_w_id)}), where comparing the words at every offset cost
     * half of the route (RouteBenchmark): the words are compared only where {@link String#indexOf(int)}, which the JIT
     * vectorises, finds their first letter.
     */
    private boolean mayJoinByName() {
        String sql = statement.sql();
        return containsWord(sql, 'u', "using") || containsWord(sql, 'U', "using")
                || containsWord(sql, 'n', "natural") || containsWord(sql, 'N', "natural");
    }

    /** Whether {@code word} (lower case) occurs, ignoring case, at an occurrence of {@code first}. */
    private static boolean containsWord(String text, char first, String word) {
        for (int i = text.indexOf(first); i >= 0; i = text.indexOf(first, i + 1)) {
            if (text.regionMatches(true, i, word, 0, word.length())) {
                return true;
            }
        }
        return false;
    }

    /** The FROM list of a block, read from the tokens once; {@link FromClause#NOT_UNDERSTOOD} when it cannot be. */
    FromClause fromClause(int block) {
        if (fromClauses == null) {
            fromClauses = new FromClause[statement.blocks().size()];
        }
        FromClause result = fromClauses[block];
        if (result == null) {
            result = readFromClause(block);
            fromClauses[block] = result;
        }
        return result;
    }

    private FromClause readFromClause(int block) {
        int first = -1;
        for (TableReference each : references) {
            if (each.block() == block && each.role() == TableRole.FROM && (first < 0 || each.range().start() < first)) {
                first = each.range().start();
            }
        }
        TokenList list = tokens();
        int index = first < 0 || list == null ? -1 : tokenAt(list, first);
        if (index < 0) {
            return FromClause.NOT_UNDERSTOOD;
        }
        boolean usingList = block == 0 && (statement.body() instanceof DeleteStatement || statement.body() instanceof MergeStatement);
        int depth = 0;
        int outermost = 0;
        for (int i = index - 1; i >= 0; i--) {
            if (list.is(i, TokenKind.RIGHT_PAREN)) {
                depth++;
            } else if (list.is(i, TokenKind.LEFT_PAREN)) {
                depth--;
                outermost = Math.min(outermost, depth);
            } else if (depth == outermost && (list.isKeyword(i, Keyword.FROM) || usingList && list.isKeyword(i, Keyword.USING))) {
                return FromClause.read(list, i + 1);
            }
        }
        return FromClause.NOT_UNDERSTOOD;
    }

    private TokenList tokens() {
        if (tokens == null) {
            try {
                tokens = Lexer.tokenize(statement.sql());
            } catch (SqlSyntaxException e) {
                return null;
            }
        }
        return tokens;
    }

    private static int tokenAt(TokenList list, int offset) {
        int low = 0;
        int high = list.size() - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            int start = list.start(middle);
            if (start == offset) {
                return middle;
            }
            if (start < offset) {
                low = middle + 1;
            } else {
                high = middle - 1;
            }
        }
        return -1;
    }

    int partitionCount() {
        return partitions.size();
    }

    /**
     * Joins partition {@code from} to partition {@code into}, node to node: their tables must have the same node layout
     * ({@link ShardingTable#sameLayout}), so that each unit names, for every table, the actual table at the same node
     * index. Used for DDL whose tables meet node by node (a foreign key between co-located tables) or not at all
     * (DROP TABLE a, b).
     */
    void mergePartition(int from, int into) {
        if (from == into) {
            return;
        }
        List<ShardingTable> target = partitions.get(into);
        for (ShardingTable each : partitions.get(from)) {
            if (!target.contains(each)) {
                target.add(each);
            }
        }
        partitions.remove(from);
        for (int i = 0; i < partitionOf.length; i++) {
            if (partitionOf[i] == from) {
                partitionOf[i] = into > from ? into - 1 : into;
            } else if (partitionOf[i] > from) {
                partitionOf[i]--;
            }
        }
    }

    /** The first table of a partition: its node layout is the partition's. */
    ShardingTable partitionTable(int partition) {
        return partitions.get(partition).get(0);
    }

    ShardingTable shardingTable(int occurrence) {
        return (ShardingTable) ruleTables[occurrence];
    }

    boolean hasSharded() {
        return !partitions.isEmpty();
    }

    /** The names of a partition's tables, for messages. */
    String partitionNames(int partition) {
        StringBuilder result = new StringBuilder();
        for (ShardingTable each : partitions.get(partition)) {
            result.append(result.isEmpty() ? "" : ", ").append(each.logicTable());
        }
        return result.toString();
    }

    /** Every sharded table name, for messages. */
    String shardedNames() {
        StringBuilder result = new StringBuilder();
        for (int p = 0; p < partitions.size(); p++) {
            result.append(result.isEmpty() ? "" : ", ").append(partitionNames(p));
        }
        return result.toString();
    }

    /** Computes each partition's nodes from the conditions of every block. */
    void place() {
        int count = partitions.size();
        positions = new NodeSet[count];
        touched = new boolean[count];
        for (int p = 0; p < count; p++) {
            positions[p] = NodeSet.empty(partitionTable(p).nodeCount());
        }
        if (count == 0) {
            return;
        }
        List<QueryBlock> blocks = statement.blocks();
        boolean[] inBlock = new boolean[count];
        for (int b = 0, n = blocks.size(); b < n; b++) {
            boolean any = false;
            Arrays.fill(inBlock, false);
            for (int i = 0; i < kinds.length; i++) {
                if (kinds[i] == SHARDED && i != excluded && references.get(i).block() == b) {
                    inBlock[partitionOf[i]] = true;
                    any = true;
                }
            }
            if (!any) {
                continue;
            }
            QueryBlock block = blocks.get(b);
            List<Conjunction> disjuncts = block.where().disjuncts();
            for (int p = 0; p < count; p++) {
                if (!inBlock[p]) {
                    continue;
                }
                touched[p] = true;
                int[] cluster = clusters(p, block);
                for (int d = 0, m = disjuncts.size(); d < m && !positions[p].isFull(); d++) {
                    placeDisjunct(p, block, disjuncts.get(d), cluster);
                }
            }
        }
    }

    /**
     * Groups the occurrences of a partition in one block into clusters whose rows meet on one node: occurrences
     * joined node to node (two tables of a binding group on their binding keys, one table with itself on all its
     * sharding columns). Conditions intersect within a cluster and unite across clusters; several clusters over several units
     * are refused ({@link #unalignedJoin}).
     *
     * @return per occurrence, its cluster's representative occurrence (-1 outside the partition or block)
     */
    private int[] clusters(int partition, QueryBlock block) {
        int[] result = new int[kinds.length];
        Arrays.fill(result, -1);
        for (int i = 0; i < kinds.length; i++) {
            if (partitionOf[i] != partition || i == excluded || references.get(i).block() != block.id()) {
                continue;
            }
            result[i] = i;
            for (int j = 0; j < i; j++) {
                if (result[j] < 0) {
                    continue;
                }
                if (result[j] != result[i] && aligned(i, j, block)) {
                    int from = result[i];
                    int to = result[j];
                    for (int k = 0; k <= i; k++) {
                        if (result[k] == from) {
                            result[k] = to;
                        }
                    }
                }
            }
        }
        for (int i = 0; i < kinds.length; i++) {
            if (result[i] >= 0 && result[i] != result[firstOf(result)] && unalignedJoin < 0) {
                unalignedJoin = i;
                unalignedPartner = firstOf(result);
            }
        }
        return result;
    }

    private static int firstOf(int[] clusters) {
        for (int i = 0; i < clusters.length; i++) {
            if (clusters[i] >= 0) {
                return i;
            }
        }
        return 0;
    }

    private void placeDisjunct(int partition, QueryBlock block, Conjunction conjunction, int[] cluster) {
        NodeSet union = null;
        for (int representative = 0; representative < kinds.length; representative++) {
            if (cluster[representative] != representative) {
                continue;
            }
            NodeSet result = null;
            for (int i = 0; i < kinds.length; i++) {
                if (cluster[i] != representative) {
                    continue;
                }
                ColumnConstraint[] constraints = constraints(i, block, conjunction);
                if (constraints == null) {
                    continue;
                }
                ShardingTable table = shardingTable(i);
                NodeSet nodes = NodeSet.empty(table.nodeCount());
                table.route(constraints, nodes);
                if (result == null) {
                    result = nodes;
                } else {
                    result.and(nodes);
                }
            }
            if (result == null) {
                positions[partition].addAll();
                return;
            }
            if (union == null) {
                union = result;
            } else {
                union.or(result);
            }
        }
        if (union != null) {
            positions[partition].or(union);
        }
    }

    /** The constraints a conjunction puts on an occurrence's sharding columns, or null when it puts none. */
    ColumnConstraint[] constraints(int occurrence, QueryBlock block, Conjunction conjunction) {
        List<ShardingCondition> conditions = conjunction.conditions();
        if (conditions.isEmpty()) {
            return null;
        }
        ShardingTable table = shardingTable(occurrence);
        ColumnConstraint[] result = null;
        for (int c = 0, n = conditions.size(); c < n; c++) {
            ShardingCondition condition = conditions.get(c);
            int column = columnOf(condition.column(), occurrence, table);
            if (column < 0) {
                column = columnThroughJoin(condition.column(), occurrence, table, block);
            }
            if (column < 0) {
                continue;
            }
            ColumnConstraint constraint = constraint(condition);
            if (constraint == null) {
                continue;
            }
            if (result == null) {
                result = new ColumnConstraint[table.shardingColumns().size()];
                Arrays.fill(result, ColumnConstraint.UNRESTRICTED);
            }
            result[column] = result[column].and(constraint);
        }
        return result;
    }

    /** The column id of {@code column} in the occurrence's table, if the reference denotes that occurrence's sharding column. */
    int columnOf(ColumnReference column, int occurrence, ShardingTable table) {
        int result = table.columnId(column.name());
        if (result < 0 || column.qualifier().isEmpty()) {
            return result;
        }
        return qualifies(column, references.get(occurrence)) ? result : -1;
    }

    /** Whether a qualified column reference names this occurrence (by alias, or by name when it has none). */
    static boolean qualifies(ColumnReference column, TableReference reference) {
        String qualifier = column.qualifier().orElse("");
        if (reference.alias().isPresent()) {
            return column.schema().isEmpty() && reference.alias().get().equals(qualifier);
        }
        if (!reference.name().name().equals(qualifier)) {
            return false;
        }
        return column.schema().isEmpty() || column.schema().equals(reference.name().schema());
    }

    private int columnThroughJoin(ColumnReference column, int occurrence, ShardingTable table, QueryBlock block) {
        List<ColumnEquality> equalities = block.joinEqualities();
        for (int i = 0, n = equalities.size(); i < n; i++) {
            ColumnEquality equality = equalities.get(i);
            if (sameColumn(equality.right(), column)) {
                int result = columnOf(equality.left(), occurrence, table);
                if (result >= 0) {
                    return result;
                }
            }
            if (sameColumn(equality.left(), column)) {
                int result = columnOf(equality.right(), occurrence, table);
                if (result >= 0) {
                    return result;
                }
            }
        }
        return -1;
    }

    static boolean sameColumn(ColumnReference left, ColumnReference right) {
        return left.name().equalsIgnoreCase(right.name()) && left.qualifier().equals(right.qualifier()) && left.schema().equals(right.schema());
    }

    /**
     * The constraint of one condition, or null when its values cannot be used (not comparable). Text that spells an
     * integer ({@code user_id = '7'}) stands for both the text and the integer: PostgreSQL converts it to the column's
     * type, which the router does not know, so the route covers a number column's node and a text column's node.
     */
    ColumnConstraint constraint(ShardingCondition condition) {
        List<SqlValue> values = condition.values();
        switch (condition.operator()) {
            case EQUAL -> {
                Object value = SqlValues.value(values.get(0), parameters);
                if (value instanceof String text && ShardingValues.integralText(text) instanceof Comparable<?> number) {
                    return ColumnConstraint.values(List.of(text, number));
                }
                return value == null ? ColumnConstraint.NOTHING : value instanceof Comparable<?> comparable ? ColumnConstraint.value(comparable) : null;
            }
            case IN -> {
                List<Comparable<?>> result = new ArrayList<>(values.size());
                for (int i = 0, n = values.size(); i < n; i++) {
                    Object value = SqlValues.value(values.get(i), parameters);
                    if (value instanceof Comparable<?> comparable) {
                        result.add(comparable);
                        if (value instanceof String text && ShardingValues.integralText(text) instanceof Comparable<?> number) {
                            result.add(number);
                        }
                    } else if (value != null) {
                        return null;
                    }
                }
                return ColumnConstraint.values(result);
            }
            case BETWEEN -> {
                Object low = SqlValues.value(values.get(0), parameters);
                Object high = SqlValues.value(values.get(1), parameters);
                if (low == null || high == null) {
                    return ColumnConstraint.NOTHING;
                }
                if (!(low instanceof Comparable<?> lower) || !(high instanceof Comparable<?> upper)) {
                    return null;
                }
                return ColumnConstraint.range(ColumnConstraint.rangeOf(lower, true, upper, true));
            }
            default -> {
                Object value = SqlValues.value(values.get(0), parameters);
                if (value == null) {
                    return ColumnConstraint.NOTHING;
                }
                if (!(value instanceof Comparable<?> bound)) {
                    return null;
                }
                return switch (condition.operator()) {
                    case LESS_THAN -> ColumnConstraint.range(ColumnConstraint.rangeOf(null, false, bound, false));
                    case LESS_THAN_OR_EQUAL -> ColumnConstraint.range(ColumnConstraint.rangeOf(null, false, bound, true));
                    case GREATER_THAN -> ColumnConstraint.range(ColumnConstraint.rangeOf(bound, false, null, false));
                    default -> ColumnConstraint.range(ColumnConstraint.rangeOf(bound, true, null, false));
                };
            }
        }
    }

    /**
     * Builds the units of the sharded partitions: one per node of a single partition; with several partitions (sharded
     * tables that are not bound together) the cartesian product of their nodes, which must all lie on one data
     * source: there every row of one meets every row of the others exactly once. A partition whose conditions match
     * no row keeps one node so that the statement still runs and answers with its empty result.
     *
     * @throws RouteException 0A000 when several partitions need more than one data source
     */
    List<RouteUnit> shardedUnits() {
        int count = partitions.size();
        if (count == 1 && positions[0].isEmpty()) {
            positions[0].add(0);
        }
        if (count > 1) {
            int dataSource = commonDataSource();
            for (int p = 0; p < count; p++) {
                if (positions[p].isEmpty()) {
                    positions[p].add(firstNodeOn(partitionTable(p), dataSource));
                }
            }
        }
        if (count == 1) {
            NodeSet nodes = positions[0];
            List<RouteUnit> result = new ArrayList<>(nodes.size());
            for (int node = nodes.next(0); node >= 0; node = nodes.next(node + 1)) {
                result.add(unit(node));
            }
            return result;
        }
        List<RouteUnit> result = new ArrayList<>();
        int[] chosen = new int[count];
        for (int dataSource = 0, n = rules.dataSources().size(); dataSource < n; dataSource++) {
            cartesian(dataSource, 0, chosen, result);
        }
        if (result.isEmpty()) {
            throw new RouteException("0A000", "sharded tables " + shardedNames() + " have no data source in common where the statement's rows could be joined");
        }
        return result;
    }

    /** The one data source every partition's nodes lie on; refuses a statement whose partitions need several. */
    private int commonDataSource() {
        int result = -1;
        for (int p = 0; p < partitions.size(); p++) {
            ShardingTable table = partitionTable(p);
            NodeSet nodes = positions[p];
            for (int node = nodes.next(0); node >= 0; node = nodes.next(node + 1)) {
                if (result < 0) {
                    result = table.nodeDataSource(node);
                } else if (table.nodeDataSource(node) != result) {
                    throw crossDataSourceJoin();
                }
            }
        }
        return result < 0 ? partitionTable(0).nodeDataSource(0) : result;
    }

    private static int firstNodeOn(ShardingTable table, int dataSource) {
        for (int node = 0; node < table.nodeCount(); node++) {
            if (table.nodeDataSource(node) == dataSource) {
                return node;
            }
        }
        return 0;
    }

    /** The refusal of partitions on several data sources, worded for how the statement combines them. */
    private RouteException crossDataSourceJoin() {
        if (statement.body() instanceof SelectStatement select && select.setOperation() != SetOperation.NONE) {
            return ShardedConstructs.refuse(ShardedConstructs.operationName(select.setOperation()) + " over sharded table " + shardedNames()
                    + " across several shards");
        }
        for (int p = 0; p < partitions.size(); p++) {
            boolean inRoot = false;
            for (int i = 0; i < kinds.length; i++) {
                inRoot |= partitionOf[i] == p && i != excluded && references.get(i).block() == 0;
            }
            if (!inRoot) {
                return ShardedConstructs.refuse("subquery reading sharded table " + partitionNames(p) + " across data sources",
                        "correlate it to the outer query on its sharding columns (on the sharding columns that pick the actual tables, for a binding table), or give it conditions that route it to one shard "
                                + "on the outer query's data source");
            }
        }
        StringBuilder others = new StringBuilder();
        for (int p = 1; p < partitions.size(); p++) {
            others.append(p == 1 ? "" : ", ").append(partitionNames(p));
        }
        return ShardedConstructs.refuse("join of sharded table " + partitionNames(0) + " with sharded table " + others + " across data sources",
                "rows on different data sources never meet; only binding tables joined on the sharding columns that pick their actual tables are joined shard by shard. "
                        + "Give conditions that route every sharded table to one data source, or make the smaller table a broadcast table");
    }

    private void cartesian(int dataSource, int partition, int[] chosen, List<RouteUnit> result) {
        if (partition == chosen.length) {
            List<TableMapping> mappings = new ArrayList<>(chosen.length + 1);
            for (int p = 0; p < chosen.length; p++) {
                for (ShardingTable each : partitions.get(p)) {
                    mappings.add(each.mapping(chosen[p]));
                }
            }
            result.add(new RouteUnit(rules.dataSources().get(dataSource), mappings));
            return;
        }
        ShardingTable table = partitionTable(partition);
        NodeSet nodes = positions[partition];
        for (int node = nodes.next(0); node >= 0; node = nodes.next(node + 1)) {
            if (table.nodeDataSource(node) == dataSource) {
                chosen[partition] = node;
                cartesian(dataSource, partition + 1, chosen, result);
            }
        }
    }

    /** The unit of one node of the only partition. */
    RouteUnit unit(int node) {
        List<ShardingTable> members = partitions.get(0);
        if (members.size() == 1) {
            return members.get(0).unit(node);
        }
        List<TableMapping> mappings = new ArrayList<>(members.size());
        for (ShardingTable each : members) {
            mappings.add(each.mapping(node));
        }
        return new RouteUnit(members.get(0).node(node).dataSource(), mappings);
    }

    /** Data source index of a unit. */
    int dataSourceOf(RouteUnit unit) {
        return rules.dataSourceIndex(unit.dataSource());
    }

    /**
     * Checks that the single (or unknown) tables of the statement can run on every unit: they live on one data
     * source only, so every unit must be there.
     */
    void checkSinglesWith(List<RouteUnit> units) {
        if (singleDataSource < 0) {
            return;
        }
        for (RouteUnit each : units) {
            if (dataSourceOf(each) != singleDataSource) {
                throw new RouteException("0A000", "sharded table " + shardedNames() + " needs data source " + each.dataSource() + " but table "
                        + describe(singleOccurrence) + " is not there; join unsharded tables with sharded ones only on their data source, or make them broadcast tables");
            }
        }
    }
}
