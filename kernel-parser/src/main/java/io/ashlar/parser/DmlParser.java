package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.Assignment;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.parser.statement.DeleteStatement;
import io.ashlar.parser.statement.InsertColumn;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.InsertValue;
import io.ashlar.parser.statement.InsertValueKind;
import io.ashlar.parser.statement.MergeStatement;
import io.ashlar.parser.statement.ParameterValue;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.parser.statement.StatementBody;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.parser.statement.UpdateStatement;
import io.ashlar.parser.statement.ValuesRow;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Parses data-modifying statements:
 * <a href="https://www.postgresql.org/docs/current/sql-insert.html">INSERT</a>,
 * <a href="https://www.postgresql.org/docs/current/sql-update.html">UPDATE</a>,
 * <a href="https://www.postgresql.org/docs/current/sql-delete.html">DELETE</a>,
 * <a href="https://www.postgresql.org/docs/current/sql-merge.html">MERGE</a> (tables only) and
 * <a href="https://www.postgresql.org/docs/current/sql-copy.html">COPY</a>.
 */
final class DmlParser {
    private static final Set<Keyword> UPDATE_CLAUSES = EnumSet.of(Keyword.FROM, Keyword.WHERE, Keyword.RETURNING);
    private static final Set<Keyword> DELETE_CLAUSES = EnumSet.of(Keyword.USING, Keyword.WHERE, Keyword.RETURNING);
    private static final Set<Keyword> RETURNING = EnumSet.of(Keyword.RETURNING);
    private static final Set<Keyword> VALUES_END = EnumSet.of(Keyword.ON, Keyword.RETURNING, Keyword.ORDER,
            Keyword.LIMIT, Keyword.OFFSET, Keyword.FETCH, Keyword.UNION, Keyword.INTERSECT, Keyword.EXCEPT);

    private final ParseContext c;

    DmlParser(ParseContext context) {
        this.c = context;
    }

    /** Parses the INSERT, UPDATE, DELETE or MERGE in {@code [from, to)}; null if it is not one it can read. */
    StatementBody parse(int from, int to, int block) {
        return switch (c.keyword(from)) {
            case INSERT -> insert(from, to, block);
            case UPDATE -> update(from, to, block);
            case DELETE -> delete(from, to, block);
            case MERGE -> merge(from, to, block);
            default -> null;
        };
    }

    private StatementBody unrecognized(int from, int to, int block) {
        c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        c.scanExpression(from, to, block);
        return null;
    }

    // ---- INSERT

    private StatementBody insert(int i, int to, int block) {
        if (!c.kw(i + 1, Keyword.INTO)) {
            return unrecognized(i, to, block);
        }
        ParseContext.QualifiedName name = c.qualifiedName(i + 2, to);
        if (name == null) {
            return unrecognized(i, to, block);
        }
        int j = name.next();
        Optional<String> alias = Optional.empty();
        if (c.kw(j, Keyword.AS) && c.isWord(j + 1)) {
            alias = Optional.of(c.name(j + 1));
            j += 2;
        }
        int target = c.addTable(name, alias, TableRole.DML_TARGET, block);
        List<InsertColumn> columns = new ArrayList<>();
        OptionalInt columnsEnd = OptionalInt.empty();
        if (c.is(j, TokenKind.LEFT_PAREN) && !c.startsQuery(j + 1)) {
            int close = c.close(j);
            if (close < 0) {
                return unrecognized(j, to, block);
            }
            for (int[] item : c.splitCommas(j + 1, close)) {
                if (item[0] < item[1] && c.isWord(item[0])) {
                    columns.add(new InsertColumn(c.name(item[0]), c.range(item[0], item[1])));
                } else {
                    c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                }
                if (item[1] - item[0] > 1) {
                    c.scanExpression(item[0], item[1], block); // a lone column name is no whole-row value
                }
            }
            columnsEnd = OptionalInt.of(c.startOffset(close));
            j = close + 1;
        }
        if (c.kw(j, Keyword.OVERRIDING)) {
            j += 3;
        }
        List<ValuesRow> rows = new ArrayList<>();
        Optional<SourceRange> query = Optional.empty();
        boolean defaultValues = false;
        if (c.kw(j, Keyword.DEFAULT) && c.kw(j + 1, Keyword.VALUES)) {
            defaultValues = true;
            j += 2;
        } else if (c.kw(j, Keyword.VALUES) && isPlainValues(j, to)) {
            j = valuesRows(j + 1, to, block, rows);
        } else if (c.startsQuery(j)) {
            int end = queryEnd(j, to);
            c.queries.parse(j, end, c.newBlock(block), block, false);
            query = Optional.of(c.range(j, end));
            j = end;
        } else {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        Optional<SourceRange> onConflict = Optional.empty();
        if (c.kw(j, Keyword.ON) && c.kw(j + 1, Keyword.CONFLICT)) {
            int end = c.clauseEnd(j + 2, to, RETURNING);
            c.scanExpression(j + 2, end, block);
            onConflict = Optional.of(c.range(j, end));
            j = end;
        }
        Optional<SourceRange> returning = Optional.empty();
        if (c.kw(j, Keyword.RETURNING)) {
            c.scanExpression(j + 1, to, block);
            returning = Optional.of(c.range(j + 1, to));
            j = to;
        }
        if (j < to) {
            unrecognized(j, to, block);
        }
        return new InsertStatement(target, columns, columnsEnd, rows, query, defaultValues, onConflict, returning);
    }

    /** Whether the VALUES at {@code i} is a plain row list (not a query with ORDER BY, LIMIT, UNION ...). */
    private boolean isPlainValues(int i, int to) {
        int end = c.clauseEnd(i + 1, to, VALUES_END);
        return end == to || c.kw(end, Keyword.ON) || c.kw(end, Keyword.RETURNING);
    }

    private int queryEnd(int from, int to) {
        int i = from;
        while (i < to) {
            if (c.kw(i, Keyword.RETURNING) || (c.kw(i, Keyword.ON) && c.kw(i + 1, Keyword.CONFLICT))) {
                return i;
            }
            i = c.skip(i, to);
        }
        return to;
    }

    private int valuesRows(int from, int to, int block, List<ValuesRow> rows) {
        int i = from;
        while (c.is(i, TokenKind.LEFT_PAREN)) {
            int close = c.close(i);
            if (close < 0 || close >= to) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return to;
            }
            List<InsertValue> values = new ArrayList<>();
            for (int[] item : c.splitCommas(i + 1, close)) {
                values.add(insertValue(item[0], item[1], block));
            }
            rows.add(new ValuesRow(c.range(i, close + 1), c.startOffset(close), values));
            i = close + 1;
            if (!c.is(i, TokenKind.COMMA)) {
                break;
            }
            i++;
        }
        return i;
    }

    private InsertValue insertValue(int from, int to, int block) {
        SourceRange range = c.range(from, to);
        if (to - from == 1 && c.kw(from, Keyword.DEFAULT)) {
            return new InsertValue(range, InsertValueKind.DEFAULT, Optional.empty());
        }
        SqlValue value = c.values.value(from, to);
        if (value == null) {
            c.scanExpression(from, to, block);
            return new InsertValue(range, InsertValueKind.EXPRESSION, Optional.empty());
        }
        InsertValueKind kind = value instanceof ParameterValue ? InsertValueKind.PARAMETER : InsertValueKind.LITERAL;
        return new InsertValue(range, kind, Optional.of(value));
    }

    // ---- UPDATE

    private StatementBody update(int i, int to, int block) {
        int j = i + 1;
        if (c.kw(j, Keyword.ONLY)) {
            j++;
        }
        ParseContext.QualifiedName name = c.qualifiedName(j, to);
        if (name == null) {
            return unrecognized(i, to, block);
        }
        j = name.next();
        if (c.op(j, "*")) {
            j++;
        }
        Optional<String> alias = Optional.empty();
        if (c.kw(j, Keyword.AS) && c.isWord(j + 1)) {
            alias = Optional.of(c.name(j + 1));
            j += 2;
        } else if (c.isName(j) && !c.kw(j, Keyword.SET)) {
            alias = Optional.of(c.name(j));
            j++;
        }
        int target = c.addTable(name, alias, TableRole.DML_TARGET, block);
        if (!c.kw(j, Keyword.SET)) {
            unrecognized(j, to, block);
            return new UpdateStatement(target, List.of(), Optional.empty(), false, Optional.empty());
        }
        int setEnd = c.clauseEnd(j + 1, to, UPDATE_CLAUSES);
        List<Assignment> assignments = new ArrayList<>();
        for (int[] item : c.splitCommas(j + 1, setEnd)) {
            Assignment assignment = assignment(item[0], item[1]);
            if (assignment == null) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            } else {
                assignments.add(assignment);
            }
        }
        c.scanExpression(j + 1, setEnd, block);
        j = setEnd;
        if (c.kw(j, Keyword.FROM)) {
            int end = c.clauseEnd(j + 1, to, UPDATE_CLAUSES);
            c.queries.fromList(j + 1, end, block);
            j = end;
        }
        Where where = where(j, to, block);
        j = where.next;
        Optional<SourceRange> returning = returning(j, to, block);
        return new UpdateStatement(target, assignments, where.range, where.currentOf, returning);
    }

    private Assignment assignment(int from, int to) {
        int equals = -1;
        for (int i = from; i < to; i = c.skip(i, to)) {
            if (c.op(i, "=")) {
                equals = i;
                break;
            }
        }
        if (equals <= from || equals + 1 >= to) {
            return null;
        }
        List<String> columns = new ArrayList<>(1);
        if (c.is(from, TokenKind.LEFT_PAREN)) {
            for (int[] item : c.splitCommas(from + 1, Math.max(from + 1, c.close(from)))) {
                if (item[0] < item[1] && c.isWord(item[0])) {
                    columns.add(c.name(item[0]));
                }
            }
        } else if (c.isWord(from)) {
            columns.add(c.name(from));
        }
        if (columns.isEmpty()) {
            return null;
        }
        return new Assignment(columns, c.range(from, equals), c.range(equals + 1, to),
                Optional.ofNullable(c.values.value(equals + 1, to)));
    }

    private record Where(Optional<SourceRange> range, boolean currentOf, int next) {
    }

    /** WHERE condition (or WHERE CURRENT OF cursor) of UPDATE and DELETE, if at {@code i}. */
    private Where where(int i, int to, int block) {
        if (!c.kw(i, Keyword.WHERE)) {
            return new Where(Optional.empty(), false, i);
        }
        int end = c.clauseEnd(i + 1, to, RETURNING);
        Optional<SourceRange> range = Optional.of(c.range(i + 1, end));
        if (c.kw(i + 1, Keyword.CURRENT) && c.kw(i + 2, Keyword.OF)) {
            return new Where(range, true, end);
        }
        c.scanExpression(i + 1, end, block);
        c.addWhere(block, c.conditions.parse(i + 1, end));
        return new Where(range, false, end);
    }

    private Optional<SourceRange> returning(int i, int to, int block) {
        if (c.kw(i, Keyword.RETURNING)) {
            c.scanExpression(i + 1, to, block);
            return Optional.of(c.range(i + 1, to));
        }
        if (i < to) {
            unrecognized(i, to, block);
        }
        return Optional.empty();
    }

    // ---- DELETE

    private StatementBody delete(int i, int to, int block) {
        if (!c.kw(i + 1, Keyword.FROM)) {
            return unrecognized(i, to, block);
        }
        int j = i + 2;
        if (c.kw(j, Keyword.ONLY)) {
            j++;
        }
        ParseContext.QualifiedName name = c.qualifiedName(j, to);
        if (name == null) {
            return unrecognized(i, to, block);
        }
        j = name.next();
        if (c.op(j, "*")) {
            j++;
        }
        int[] next = new int[1];
        Optional<String> alias = c.alias(j, to, next);
        j = next[0];
        int target = c.addTable(name, alias, TableRole.DML_TARGET, block);
        if (c.kw(j, Keyword.USING)) {
            int end = c.clauseEnd(j + 1, to, DELETE_CLAUSES);
            c.queries.fromList(j + 1, end, block);
            j = end;
        }
        Where where = where(j, to, block);
        Optional<SourceRange> returning = returning(where.next, to, block);
        return new DeleteStatement(target, where.range, where.currentOf, returning);
    }

    // ---- MERGE

    private StatementBody merge(int i, int to, int block) {
        int j = i + 1;
        if (c.kw(j, Keyword.INTO)) {
            j++;
        }
        if (c.kw(j, Keyword.ONLY)) {
            j++;
        }
        ParseContext.QualifiedName name = c.qualifiedName(j, to);
        if (name == null) {
            return unrecognized(i, to, block);
        }
        j = name.next();
        if (c.op(j, "*")) {
            j++;
        }
        int[] next = new int[1];
        Optional<String> alias = c.alias(j, to, next);
        j = next[0];
        int target = c.addTable(name, alias, TableRole.DML_TARGET, block);
        if (c.kw(j, Keyword.USING)) {
            j = c.queries.tableReference(j + 1, to, block);
        }
        c.scanExpression(j, to, block);
        return new MergeStatement(target);
    }

    // ---- COPY

    /** COPY table [(columns)] FROM | TO ..., or COPY (query) TO .... */
    StatementBody copy(int i, int to, int block) {
        int j = i + 1;
        if (c.kw(j, Keyword.BINARY)) {
            j++;
        }
        Optional<SourceRange> query = Optional.empty();
        ParseContext.QualifiedName name = null;
        List<InsertColumn> columns = new ArrayList<>();
        if (c.is(j, TokenKind.LEFT_PAREN)) {
            int close = c.close(j);
            if (close < 0 || !c.startsQuery(j + 1)) {
                return unrecognized(i, to, block);
            }
            c.queries.parse(j + 1, close, block, -1, false);
            query = Optional.of(c.range(j + 1, close));
            j = close + 1;
        } else {
            name = c.qualifiedName(j, to);
            if (name == null) {
                return unrecognized(i, to, block);
            }
            j = name.next();
            if (c.is(j, TokenKind.LEFT_PAREN)) {
                int close = c.close(j);
                if (close < 0) {
                    return unrecognized(i, to, block);
                }
                for (int[] item : c.splitCommas(j + 1, close)) {
                    if (item[0] < item[1] && c.isWord(item[0])) {
                        columns.add(new InsertColumn(c.name(item[0]), c.range(item[0], item[1])));
                    }
                }
                j = close + 1;
            }
        }
        boolean from = c.kw(j, Keyword.FROM);
        if (!from && !c.kw(j, Keyword.TO)) {
            return unrecognized(i, to, block);
        }
        OptionalInt table = OptionalInt.empty();
        if (name != null) {
            table = OptionalInt.of(c.addTable(name, Optional.empty(), from ? TableRole.DML_TARGET : TableRole.FROM,
                    block));
        }
        boolean stdio = c.kw(j + 1, Keyword.STDIN) || c.kw(j + 1, Keyword.STDOUT);
        return new CopyStatement(from, table, columns, query, stdio, c.range(j + 1, to));
    }
}
