package io.ashlar.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.statement.AggregateFunction;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.ConditionOperator;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.InsertValueKind;
import io.ashlar.parser.statement.LiteralKind;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.ParameterValue;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.ShardingCondition;
import io.ashlar.parser.statement.ShardingConditions;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableName;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.parser.statement.TransactionStatement;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StatementAnalyzerTest {
    private static final SourceRange NOWHERE = SourceRange.at(0);

    @Test
    void tablesForResolvesAliasesAndNamesWithinTheBlock() {
        AnalyzedStatement statement = StatementAnalyzer.analyze(
                "SELECT * FROM t_order o JOIN t_item ON t_item.oid = o.id "
                        + "WHERE EXISTS (SELECT 1 FROM t_user u WHERE u.id = o.user_id AND x = 1)");
        ColumnReference aliased = new ColumnReference(Optional.empty(), Optional.of("o"), "id", NOWHERE);
        assertEquals(List.of("t_order"), names(statement.tablesFor(aliased, 0)));
        ColumnReference byName = new ColumnReference(Optional.empty(), Optional.of("t_item"), "oid",
                NOWHERE);
        assertEquals(List.of("t_item"), names(statement.tablesFor(byName, 0)));
        // a correlated reference in the subquery (block 1) is not one of that block's tables, so a
        // condition on it must not restrict anything
        assertEquals(List.of(), names(statement.tablesFor(aliased, 1)));
        // an unqualified column belongs to one of the block's own tables only
        ColumnReference bare = new ColumnReference(Optional.empty(), Optional.empty(), "x",
                NOWHERE);
        assertEquals(List.of("t_user"), names(statement.tablesFor(bare, 1)));
        assertEquals(List.of("t_order", "t_item"), names(statement.tablesIn(0)));
        // the table name is hidden by its alias, as in PostgreSQL
        ColumnReference hidden = new ColumnReference(Optional.empty(), Optional.of("t_order"), "id",
                NOWHERE);
        assertEquals(List.of(), names(statement.tablesFor(hidden, 0)));
    }

    private static List<String> names(List<TableReference> tables) {
        return tables.stream().map(table -> table.name().name()).toList();
    }

    @Test
    void tableNamesAreValueObjects() {
        assertEquals(TableName.of("t"), TableName.of("", "t"));
        assertEquals(TableName.of("s", "t").hashCode(), TableName.of("s", "t").hashCode());
        assertFalse(TableName.of("s", "t").equals(TableName.of("t")));
        assertEquals(Optional.of("s"), TableName.of("s", "t").schema());
        assertEquals("s.t", TableName.of("s", "t").toString());
    }

    @Test
    void conditionValuesCarryKindsAndParameters() {
        AnalyzedStatement statement = StatementAnalyzer.analyze(
                "SELECT * FROM t WHERE id = '0042'::int8 AND k IN ($3, -0x10) AND d = 1.50");
        List<ShardingCondition> conditions = statement.where().disjuncts().get(0).conditions();
        assertEquals(3, conditions.size());
        LiteralValue cast = assertInstanceOf(LiteralValue.class, conditions.get(0).values().get(0));
        assertEquals(LiteralKind.STRING, cast.kind());
        assertEquals("0042", cast.value());
        assertEquals(Optional.of("int8"), cast.typeName());
        assertEquals("'0042'::int8", cast.range().text(statement.sql()));
        assertEquals(ConditionOperator.IN, conditions.get(1).operator());
        assertEquals(3, assertInstanceOf(ParameterValue.class, conditions.get(1).values().get(0)).number());
        LiteralValue hex = assertInstanceOf(LiteralValue.class, conditions.get(1).values().get(1));
        assertEquals("-16", hex.value());
        assertEquals("-0x10", hex.range().text(statement.sql()));
        assertEquals(LiteralKind.DECIMAL, ((LiteralValue) conditions.get(2).values().get(0)).kind());
        assertEquals(3, statement.parameterCount());
    }

    @Test
    void noWhereMeansUnrestricted() {
        AnalyzedStatement statement = StatementAnalyzer.analyze("SELECT * FROM t");
        assertTrue(statement.where().isUnrestricted());
        assertEquals(ShardingConditions.UNRESTRICTED, statement.where());
        assertTrue(statement.isComplete());
    }

    @Test
    void insertRowsGiveTheShardingValuePerRow() {
        AnalyzedStatement statement = StatementAnalyzer.analyze(
                "INSERT INTO t_order (user_id, order_id, note) VALUES ($1, $2, 'a'), (7, $3, lower('B'))");
        InsertStatement insert = assertInstanceOf(InsertStatement.class, statement.body());
        int userId = insert.columnIndex("user_id");
        assertEquals(0, userId);
        assertEquals(-1, insert.columnIndex("missing"));
        assertEquals(1, ((ParameterValue) insert.rows().get(0).values().get(userId).value().orElseThrow()).number());
        assertEquals("7", ((LiteralValue) insert.rows().get(1).values().get(userId).value().orElseThrow()).value());
        assertEquals(InsertValueKind.EXPRESSION, insert.rows().get(1).values().get(2).kind());
        // a rewriter appends a generated key column and one value per row at these offsets
        String sql = statement.sql();
        String rewritten = sql.substring(0, insert.columnsEnd().getAsInt()) + ", id"
                + sql.substring(insert.columnsEnd().getAsInt(), insert.rows().get(0).valuesEnd()) + ", 100"
                + sql.substring(insert.rows().get(0).valuesEnd(), insert.rows().get(1).valuesEnd()) + ", 101"
                + sql.substring(insert.rows().get(1).valuesEnd());
        assertEquals("INSERT INTO t_order (user_id, order_id, note, id) VALUES ($1, $2, 'a', 100), (7, $3, lower('B'), 101)",
                rewritten);
        assertEquals(StatementKind.INSERT, statement.kind());
    }

    @Test
    void derivedColumnsAndSortKeysCanBeInsertedAtTheGivenOffsets() {
        AnalyzedStatement statement = StatementAnalyzer.analyze(
                "SELECT user_id, avg(amount) FROM t_order GROUP BY user_id LIMIT 10");
        SelectStatement select = assertInstanceOf(SelectStatement.class, statement.body());
        ProjectionItem average = select.projections().get(1);
        assertEquals(AggregateFunction.AVG, average.aggregate().orElseThrow().function());
        assertEquals("amount", average.aggregate().orElseThrow().argument());
        String sql = statement.sql();
        int projectionsEnd = select.projectionsEnd();
        int orderBy = select.orderByInsertPosition();
        String rewritten = sql.substring(0, projectionsEnd) + ", COUNT(amount) AS avg_count, SUM(amount) AS avg_sum"
                + sql.substring(projectionsEnd, orderBy) + " ORDER BY user_id" + sql.substring(orderBy);
        assertEquals("SELECT user_id, avg(amount), COUNT(amount) AS avg_count, SUM(amount) AS avg_sum FROM t_order "
                + "GROUP BY user_id ORDER BY user_id LIMIT 10", rewritten);
        assertTrue(select.isAggregated());
        assertFalse(select.hasStar());
    }

    @Test
    void paginationValuesAreReplaceable() {
        AnalyzedStatement statement = StatementAnalyzer.analyze("SELECT * FROM t ORDER BY id LIMIT $1 OFFSET $2");
        SelectStatement select = (SelectStatement) statement.body();
        var limit = select.pagination().limit().orElseThrow();
        var offset = select.pagination().offset().orElseThrow();
        String sql = statement.sql();
        String rewritten = sql.substring(0, limit.value().range().start()) + "$3"
                + sql.substring(limit.value().range().end(), offset.clauseRange().start()).stripTrailing()
                + sql.substring(offset.clauseRange().end());
        assertEquals("SELECT * FROM t ORDER BY id LIMIT $3", rewritten);
    }

    @Test
    void transactionStatementsAreRecognisedAfterComments() {
        AnalyzedStatement statement = StatementAnalyzer.analyze("/* app */ start transaction read only;");
        assertEquals(StatementKind.TRANSACTION, statement.kind());
        assertEquals(Optional.of(true), ((TransactionStatement) statement.body()).readOnly());
        assertEquals("start", statement.command());
    }

    @Test
    void lexicalErrorsAreTheOnlyErrors() {
        SqlSyntaxException error = assertThrows(SqlSyntaxException.class,
                () -> StatementAnalyzer.analyze("SELECT * FROM t WHERE a = 'x"));
        assertEquals(26, error.position());
        AnalyzedStatement nonsense = StatementAnalyzer.analyze("FROB THE WIDGET ((( ]]");
        assertEquals(StatementKind.OTHER, nonsense.kind());
        assertEquals("frob", nonsense.command());
        assertTrue(nonsense.gaps().contains(AnalysisGap.UNBALANCED_PARENTHESES));
    }

    @Test
    void analysesAlreadyTokenizedText() {
        AnalyzedStatement statement = StatementAnalyzer.analyze(Lexer.tokenize("SELECT a FROM t WHERE a = ?", true));
        assertEquals(1, statement.parameterCount());
        assertTrue(statement.parameters().get(0).jdbc());
        assertEquals(TableRole.FROM, statement.tables().get(0).role());
    }

    @Test
    void mixedParameterStylesAreFlagged() {
        AnalyzedStatement statement = StatementAnalyzer.analyze("SELECT * FROM t WHERE a = $2 AND b = ?", true);
        assertTrue(statement.gaps().contains(AnalysisGap.MIXED_PARAMETER_STYLES));
        assertEquals(2, statement.parameterCount());
    }
}
