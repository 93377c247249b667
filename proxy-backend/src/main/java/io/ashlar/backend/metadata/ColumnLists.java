package io.ashlar.backend.metadata;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.ProjectionKind;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.rewrite.template.Identifiers;
import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import java.util.List;

/**
 * Statements whose columns only the logical schema knows, written out: an INSERT without a column list, and a star
 * over a sharded table whose actual tables order their columns differently. The statement that runs is then an
 * ordinary one that route and rewrite understand.
 */
final class ColumnLists {

    private ColumnLists() {
    }

    /**
     * The statement's text with its columns written out, or null when there is nothing to write out. {@code INSERT INTO t
     * VALUES (...)} into a sharded or broadcast table becomes {@code INSERT INTO t (a, b, ...) VALUES (...)}:
     * PostgreSQL gives the values to the table's first columns in order, and so does the column list of as many
     * columns as the first row has values; the route then finds the sharding values. For a star, see
     * {@link #withStarColumns}.
     */
    static String written(AnalyzedStatement statement, LogicalSchema schema, ShardingRules rules) {
        if (statement.kind() == StatementKind.SELECT && statement.body() instanceof SelectStatement select) {
            return withStarColumns(statement, select, schema);
        }
        if (statement.kind() != StatementKind.INSERT || !(statement.body() instanceof InsertStatement insert)
                || !insert.columns().isEmpty() || insert.defaultValues() || insert.rows().isEmpty()) {
            return null;
        }
        TableReference target = statement.tables().get(insert.target());
        String schemaName = target.name().schema().orElse(SchemaLoader.PUBLIC);
        RuleTable rule = schemaName.equals(SchemaLoader.PUBLIC) ? rules.find(target.name().name()).orElse(null) : null;
        LogicalTable table = schema.table(schemaName + "." + target.name().name());
        if (!(rule instanceof ShardingTable || rule instanceof BroadcastTable) || table == null) {
            return null;
        }
        String sql = statement.sql();
        int at = target.range().end();
        try {
            TokenList after = Lexer.tokenize(sql.substring(at));
            if (after.isKeyword(0, Keyword.AS) && after.size() > 1) {
                at += after.end(1);
            }
        } catch (SqlSyntaxException e) {
            return null;
        }
        List<String> columns = table.metadata().columnNames();
        int count = Math.min(insert.rows().get(0).values().size(), columns.size());
        StringBuilder text = new StringBuilder(sql.length() + 16 * count).append(sql, 0, at).append(" (");
        for (int i = 0; i < count; i++) {
            text.append(i == 0 ? "" : ", ").append(Identifiers.write(columns.get(i), false));
        }
        return text.append(')').append(sql, at, sql.length()).toString();
    }

    /**
     * {@code SELECT *} (or {@code t.*}) over a sharded table whose actual tables do not all have the logical table's
     * columns in its order becomes the column list of the logical table: each shard then returns its rows in the
     * logical order, and the rows line up. Only where the star surely means that table's columns: {@code t.*}, or
     * {@code *} over a query of one table and no subquery. Null when nothing is written out.
     */
    private static String withStarColumns(AnalyzedStatement statement, SelectStatement select, LogicalSchema schema) {
        String sql = statement.sql();
        StringBuilder text = null;
        int at = 0;
        List<TableReference> tables = null;
        for (ProjectionItem item : select.projections()) {
            if (item.kind() != ProjectionKind.STAR && item.kind() != ProjectionKind.QUALIFIED_STAR) {
                continue;
            }
            tables = tables == null ? statement.tablesIn(0) : tables;
            TableReference table = null;
            String qualifier = null;
            if (item.kind() == ProjectionKind.QUALIFIED_STAR && item.starQualifier().isPresent()) {
                for (TableReference each : tables) {
                    if (each.exposedName().equals(item.starQualifier().get())) {
                        table = each;
                    }
                }
                String written = item.expressionRange().text(sql);
                qualifier = written.substring(0, written.lastIndexOf('*'));
            } else if (item.kind() == ProjectionKind.STAR && tables.size() == 1 && statement.blocks().size() == 1
                    && isWholeFromList(sql, tables.get(0))) {
                table = tables.get(0);
                qualifier = Identifiers.write(table.exposedName(), false) + ".";
            }
            LogicalTable logical = table == null ? null
                    : schema.table(table.name().schema().orElse(SchemaLoader.PUBLIC) + "." + table.name().name());
            if (logical == null || !logical.columnsDiffer() || logical.kind() != LogicalTable.Kind.SHARDED) {
                continue;
            }
            if (text == null) {
                text = new StringBuilder(sql.length() + 64);
            }
            text.append(sql, at, item.expressionRange().start());
            List<String> columns = logical.metadata().columnNames();
            for (int i = 0; i < columns.size(); i++) {
                text.append(i == 0 ? "" : ", ").append(qualifier).append(Identifiers.write(columns.get(i), false));
            }
            at = item.expressionRange().end();
        }
        return text == null ? null : text.append(sql, at, sql.length()).toString();
    }

    /** Whether {@code FROM table [[AS] alias]} is the whole FROM list: no join, function or other table beside it. */
    private static boolean isWholeFromList(String sql, TableReference table) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return false;
        }
        int first = -1;
        int last = -1;
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.start(i) == table.range().start()) {
                first = i;
            }
            if (tokens.end(i) == table.range().end()) {
                last = i;
            }
        }
        if (first < 1 || last < first || !tokens.isKeyword(first - 1, Keyword.FROM)) {
            return false;
        }
        int next = last + 1;
        if (tokens.isKeyword(next, Keyword.AS)) {
            next++;
        }
        if (table.alias().isPresent()) {
            next++;
        }
        return next >= tokens.size() || tokens.is(next, TokenKind.SEMICOLON) || switch (tokens.keyword(next)) {
            case WHERE, GROUP, HAVING, WINDOW, ORDER, LIMIT, OFFSET, FETCH, FOR -> true;
            default -> false;
        };
    }
}
