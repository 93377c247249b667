package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.statement.Aggregate;
import io.ashlar.parser.statement.AggregateFunction;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.DistinctKind;
import io.ashlar.parser.statement.GroupByItem;
import io.ashlar.parser.statement.LiteralKind;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.LockStrength;
import io.ashlar.parser.statement.LockingClause;
import io.ashlar.parser.statement.OrderByItem;
import io.ashlar.parser.statement.Pagination;
import io.ashlar.parser.statement.PaginationValue;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.ProjectionKind;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SetOperation;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.parser.statement.TableRole;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Parses queries ({@code select_stmt} of PostgreSQL's grammar, see
 * <a href="https://www.postgresql.org/docs/current/sql-select.html">SELECT</a>): WITH, SELECT cores
 * with their FROM / JOIN lists, set operations, ORDER BY, LIMIT / OFFSET / FETCH and locking
 * clauses. Every core gets a block; subqueries anywhere become nested blocks. The select-list,
 * ORDER BY and pagination details are kept for the top-level query only.
 */
final class QueryParser {
    private static final Set<Keyword> AFTER_ORDER_BY = EnumSet.of(Keyword.LIMIT, Keyword.OFFSET, Keyword.FETCH,
            Keyword.FOR);
    private static final Set<Keyword> AFTER_LIMIT = EnumSet.of(Keyword.OFFSET, Keyword.FETCH, Keyword.FOR);
    private static final Set<Keyword> AFTER_OFFSET = EnumSet.of(Keyword.LIMIT, Keyword.FETCH, Keyword.FOR);
    private static final Set<Keyword> TERM_END = EnumSet.of(Keyword.UNION, Keyword.INTERSECT, Keyword.EXCEPT,
            Keyword.ORDER, Keyword.LIMIT, Keyword.OFFSET, Keyword.FETCH, Keyword.FOR);
    /** Words that end a type or an interval, not aliases ({@code ::double precision}, {@code '1' day}). */
    private static final Set<Keyword> NOT_ALIASES = EnumSet.of(Keyword.PRECISION, Keyword.VARYING, Keyword.ZONE,
            Keyword.YEAR, Keyword.MONTH, Keyword.DAY, Keyword.HOUR, Keyword.MINUTE, Keyword.SECOND);
    /** Reserved words that are whole values, so an alias may follow them. */
    private static final Set<Keyword> VALUE_KEYWORDS = EnumSet.of(Keyword.NULL, Keyword.TRUE, Keyword.FALSE,
            Keyword.END, Keyword.CURRENT_DATE, Keyword.CURRENT_TIME, Keyword.CURRENT_TIMESTAMP, Keyword.CURRENT_USER,
            Keyword.CURRENT_ROLE, Keyword.CURRENT_CATALOG, Keyword.CURRENT_SCHEMA, Keyword.SESSION_USER,
            Keyword.SYSTEM_USER, Keyword.USER, Keyword.LOCALTIME, Keyword.LOCALTIMESTAMP);
    /** Aggregate functions of PostgreSQL (section 9.21); only the first five can be merged. */
    private static final Set<String> AGGREGATES = Set.of("count", "sum", "min", "max", "avg", "array_agg",
            "string_agg", "bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor", "stddev", "stddev_pop",
            "stddev_samp", "variance", "var_pop", "var_samp", "json_agg", "jsonb_agg", "json_object_agg",
            "jsonb_object_agg", "json_arrayagg", "json_objectagg", "xmlagg", "percentile_cont", "percentile_disc",
            "mode", "corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count", "regr_intercept",
            "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "any_value", "range_agg",
            "range_intersect_agg", "rank", "dense_rank", "percent_rank", "cume_dist");

    private final ParseContext c;

    QueryParser(ParseContext context) {
        this.c = context;
    }

    /** Parses the query in tokens {@code [from, to)}, its first core in {@code block}. */
    Shape parse(int from, int to, int block, int parent, boolean top) {
        int mark = c.cteMark();
        int i = from;
        if (c.kw(i, Keyword.WITH)) {
            i = with(i, to);
        }
        Shape shape = body(i, to, block, parent, top);
        c.cteRestore(mark);
        return shape;
    }

    /**
     * Parses a WITH clause at {@code i}, registering the CTE names (which stay registered until the
     * caller restores the CTE scope); returns the index of the statement that follows.
     */
    int with(int i, int to) {
        int j = i + 1;
        boolean recursive = c.kw(j, Keyword.RECURSIVE);
        if (recursive) {
            j++;
        }
        while (j < to) {
            if (!c.isName(j)) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return j;
            }
            String name = c.name(j);
            j++;
            if (c.is(j, TokenKind.LEFT_PAREN)) {
                j = c.skip(j, to);
            }
            if (!c.kw(j, Keyword.AS)) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return j;
            }
            j++;
            if (c.kw(j, Keyword.NOT) && c.kw(j + 1, Keyword.MATERIALIZED)) {
                j += 2;
            } else if (c.kw(j, Keyword.MATERIALIZED)) {
                j++;
            }
            int close = c.close(j);
            if (!c.is(j, TokenKind.LEFT_PAREN) || close < 0 || close >= to) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return to;
            }
            if (recursive) {
                c.addCte(name);
            }
            cteBody(j + 1, close);
            if (!recursive) {
                c.addCte(name);
            }
            j = close + 1;
            if (c.kw(j, Keyword.SEARCH) || c.kw(j, Keyword.CYCLE)) {
                while (j < to && !c.is(j, TokenKind.COMMA) && !c.startsQuery(j) && !isDmlStart(j)) {
                    j = c.skip(j, to);
                }
            }
            if (!c.is(j, TokenKind.COMMA)) {
                break;
            }
            j++;
        }
        return j;
    }

    private boolean isDmlStart(int i) {
        Keyword keyword = c.keyword(i);
        return keyword == Keyword.INSERT || keyword == Keyword.UPDATE || keyword == Keyword.DELETE
                || keyword == Keyword.MERGE;
    }

    private void cteBody(int from, int to) {
        int block = c.newBlock(-1);
        if (c.startsQuery(from)) {
            parse(from, to, block, -1, false);
        } else if (isDmlStart(from)) {
            c.gaps.add(AnalysisGap.DATA_MODIFYING_CTE);
            c.dml.parse(from, to, block);
        } else {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            c.scanExpression(from, to, block);
        }
    }

    /** A query without its WITH clause: terms joined by set operations, then ORDER BY, LIMIT and so on. */
    Shape body(int from, int to, int block, int parent, boolean top) {
        Shape shape = new Shape(top);
        int i = term(from, to, block, parent, shape, true);
        int termsEnd = i;
        SetOperation operation = SetOperation.NONE;
        while (i < to) {
            SetOperation next = setOperation(i);
            if (next == null) {
                break;
            }
            i++;
            if (c.kw(i, Keyword.ALL)) {
                next = switch (next) {
                    case UNION -> SetOperation.UNION_ALL;
                    case INTERSECT -> SetOperation.INTERSECT_ALL;
                    default -> SetOperation.EXCEPT_ALL;
                };
                i++;
            } else if (c.kw(i, Keyword.DISTINCT)) {
                i++;
            }
            operation = operation == SetOperation.NONE || operation == next ? next : SetOperation.MIXED;
            i = term(i, to, c.newBlock(parent), parent, shape, false);
            termsEnd = i;
        }
        SetOperation innerOperation = shape.inner == null ? SetOperation.NONE : shape.inner.setOperation;
        shape.setOperation = innerOperation == SetOperation.NONE || innerOperation == operation ? operation
                : operation == SetOperation.NONE ? innerOperation : SetOperation.MIXED;
        shape.orderByInsertPosition = termsEnd > from ? c.endOffset(termsEnd - 1) : c.startOffset(from);
        boolean trailing = false;
        if (c.kw(i, Keyword.ORDER) && c.kw(i + 1, Keyword.BY)) {
            int j = c.clauseEnd(i + 2, to, AFTER_ORDER_BY);
            orderBy(i + 2, j, block, shape);
            shape.orderByInsertPosition = c.endOffset(j - 1);
            i = j;
            trailing = true;
        }
        while (i < to) {
            Keyword keyword = c.keyword(i);
            if (keyword == Keyword.LIMIT) {
                i = limit(i, to, block, shape);
            } else if (keyword == Keyword.OFFSET) {
                i = offset(i, to, block, shape);
            } else if (keyword == Keyword.FETCH) {
                i = fetch(i, to, block, shape);
            } else if (keyword == Keyword.FOR) {
                i = locking(i, to, block, shape);
            } else {
                break;
            }
            trailing = true;
        }
        if (i < to) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            c.scanExpression(i, to, block);
        }
        if (!trailing && operation == SetOperation.NONE && shape.inner != null) {
            shape.adoptTrailing(shape.inner);
        }
        return shape;
    }

    private SetOperation setOperation(int i) {
        return switch (c.keyword(i)) {
            case UNION -> SetOperation.UNION;
            case INTERSECT -> SetOperation.INTERSECT;
            case EXCEPT -> SetOperation.EXCEPT;
            default -> null;
        };
    }

    /** One operand of a set operation: a SELECT core, VALUES, TABLE name, or a parenthesised query. */
    private int term(int i, int to, int block, int parent, Shape shape, boolean first) {
        Keyword keyword = c.keyword(i);
        if (c.is(i, TokenKind.LEFT_PAREN)) {
            int close = c.close(i);
            if (close < 0 || close >= to || !c.startsQuery(i + 1)) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                c.scanExpression(i, to, block);
                return to;
            }
            Shape inner = parse(i + 1, close, block, parent, shape.top && first);
            if (first) {
                shape.adoptCore(inner);
                shape.inner = inner;
            }
            return close + 1;
        }
        if (keyword == Keyword.SELECT) {
            return selectCore(i, to, block, first ? shape : null);
        }
        if (keyword == Keyword.VALUES) {
            int end = c.clauseEnd(i + 1, to, TERM_END);
            c.scanExpression(i + 1, end, block);
            if (first) {
                shape.valuesOnly = true;
                shape.projectionsEnd = c.endOffset(end - 1);
            }
            return end;
        }
        if (keyword == Keyword.TABLE) {
            int j = i + 1;
            if (c.kw(j, Keyword.ONLY)) {
                j++;
            }
            ParseContext.QualifiedName name = c.qualifiedName(j, to);
            if (name == null) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return to;
            }
            addTableUnlessCte(name, Optional.empty(), block);
            if (first) {
                shape.valuesOnly = true;
                shape.projectionsEnd = c.endOffset(name.lastToken());
            }
            return op(name.next(), "*") ? name.next() + 1 : name.next();
        }
        c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        c.scanExpression(i, to, block);
        return to;
    }

    private boolean op(int i, String operator) {
        return c.op(i, operator);
    }

    private int selectCore(int i, int to, int block, Shape shape) {
        int j = i + 1;
        DistinctKind distinct = DistinctKind.NONE;
        Optional<SourceRange> distinctOn = Optional.empty();
        if (c.kw(j, Keyword.ALL)) {
            j++;
        } else if (c.kw(j, Keyword.DISTINCT)) {
            distinct = DistinctKind.DISTINCT;
            j++;
            if (c.kw(j, Keyword.ON) && c.is(j + 1, TokenKind.LEFT_PAREN) && c.close(j + 1) > j + 1) {
                int close = c.close(j + 1);
                distinct = DistinctKind.DISTINCT_ON;
                distinctOn = Optional.of(c.range(j + 2, close));
                c.scanExpression(j + 2, close, block);
                j = close + 1;
            }
        }
        int listEnd = c.clauseEnd(j, to, ParseContext.CLAUSES);
        if (shape != null) {
            shape.distinct = distinct;
            shape.distinctOn = distinctOn;
            if (shape.top) {
                for (int[] item : c.splitCommas(j, listEnd)) {
                    projection(item[0], item[1], shape);
                }
            }
            shape.projectionsEnd = c.endOffset((listEnd > j ? listEnd : j) - 1);
        }
        c.markLoneNames(c.splitCommas(j, listEnd));
        c.scanExpression(j, listEnd, block);
        int k = listEnd;
        if (c.kw(k, Keyword.INTO)) {
            k = into(k + 1, to, block);
        }
        if (c.kw(k, Keyword.FROM)) {
            int next = c.clauseEnd(k + 1, to, ParseContext.CLAUSES);
            fromList(k + 1, next, block);
            k = next;
        }
        if (c.kw(k, Keyword.WHERE)) {
            int next = c.clauseEnd(k + 1, to, ParseContext.CLAUSES);
            c.scanExpression(k + 1, next, block);
            c.addWhere(block, c.conditions.parse(k + 1, next));
            k = next;
        }
        if (c.kw(k, Keyword.GROUP) && c.kw(k + 1, Keyword.BY)) {
            int next = c.clauseEnd(k + 2, to, ParseContext.CLAUSES);
            c.scanExpression(k + 2, next, block);
            if (shape != null && shape.top) {
                groupBy(k + 2, next, shape);
            }
            k = next;
        }
        if (c.kw(k, Keyword.HAVING)) {
            int next = c.clauseEnd(k + 1, to, ParseContext.CLAUSES);
            c.scanExpression(k + 1, next, block);
            if (shape != null) {
                shape.having = Optional.of(c.range(k + 1, next));
            }
            k = next;
        }
        if (c.kw(k, Keyword.WINDOW)) {
            int next = c.clauseEnd(k + 1, to, ParseContext.CLAUSES);
            c.scanExpression(k + 1, next, block);
            k = next;
        }
        return k;
    }

    /** SELECT ... INTO [TEMP | UNLOGGED] [TABLE] name: creates a table. */
    private int into(int i, int to, int block) {
        int j = i;
        while (c.kw(j, Keyword.TEMP) || c.kw(j, Keyword.TEMPORARY) || c.kw(j, Keyword.UNLOGGED)
                || c.kw(j, Keyword.GLOBAL) || c.kw(j, Keyword.LOCAL) || c.kw(j, Keyword.TABLE)) {
            j++;
        }
        ParseContext.QualifiedName name = c.qualifiedName(j, to);
        if (name == null) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return j;
        }
        c.addTable(name, Optional.empty(), TableRole.DDL_TARGET, block);
        return name.next();
    }

    // ---- FROM

    /** A FROM list (also UPDATE ... FROM and DELETE ... USING): table references joined by commas. */
    void fromList(int from, int to, int block) {
        int i = from;
        while (i < to) {
            i = joinedTable(i, to, block);
            if (i < to && c.is(i, TokenKind.COMMA)) {
                i++;
                continue;
            }
            if (i < to) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                c.scanExpression(i, to, block);
            }
            break;
        }
    }

    private int joinedTable(int from, int to, int block) {
        int i = tableReference(from, to, block);
        while (i < to) {
            int j = i;
            if (c.kw(j, Keyword.NATURAL)) {
                j++;
            }
            boolean outer = false;
            Keyword keyword = c.keyword(j);
            if (keyword == Keyword.CROSS || keyword == Keyword.INNER) {
                j++;
            } else if (keyword == Keyword.LEFT || keyword == Keyword.RIGHT || keyword == Keyword.FULL) {
                outer = true;
                j++;
                if (c.kw(j, Keyword.OUTER)) {
                    j++;
                }
            }
            if (!c.kw(j, Keyword.JOIN)) {
                if (j != i) {
                    c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                }
                break;
            }
            if (outer) {
                c.markOuterJoin(block);
            }
            i = tableReference(j + 1, to, block);
            if (c.kw(i, Keyword.ON)) {
                int end = joinConditionEnd(i + 1, to);
                c.scanExpression(i + 1, end, block);
                c.addJoinCondition(block, c.conditions.parse(i + 1, end));
                i = end;
            } else if (c.kw(i, Keyword.USING)) {
                i = c.skip(i + 1, to);
                if (c.kw(i, Keyword.AS) && c.isWord(i + 1)) {
                    i += 2;
                }
            }
        }
        return i;
    }

    /** Where an ON condition ends: at the next join, comma, or the end of the FROM list. */
    private int joinConditionEnd(int from, int to) {
        int i = from;
        while (i < to) {
            if (c.is(i, TokenKind.COMMA)) {
                return i;
            }
            Keyword keyword = c.tokens.keyword(i);
            switch (keyword) {
                case JOIN, NATURAL, CROSS -> {
                    return i;
                }
                case INNER, LEFT, RIGHT, FULL -> {
                    if (c.kw(i + 1, Keyword.JOIN) || c.kw(i + 1, Keyword.OUTER)) {
                        return i;
                    }
                }
                default -> {
                    // part of the condition
                }
            }
            i = c.skip(i, to);
        }
        return to;
    }

    /** One table reference: a table, a subquery, a function call or a parenthesised join, with its alias. */
    int tableReference(int from, int to, int block) {
        int i = from;
        if (c.kw(i, Keyword.LATERAL)) {
            i++;
        }
        int[] next = new int[1];
        if (c.is(i, TokenKind.LEFT_PAREN)) {
            int close = c.close(i);
            if (close < 0 || close >= to) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return to;
            }
            if (c.startsQuery(i + 1)) {
                parse(i + 1, close, c.newBlock(block), block, false);
            } else {
                fromList(i + 1, close, block);
            }
            c.alias(close + 1, to, next);
            return next[0];
        }
        if (c.kw(i, Keyword.ONLY)) {
            i++;
            if (c.is(i, TokenKind.LEFT_PAREN)) {
                int close = c.close(i);
                ParseContext.QualifiedName name = c.qualifiedName(i + 1, to);
                if (close < 0 || name == null) {
                    c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                    return to;
                }
                Optional<String> alias = c.alias(close + 1, to, next);
                addTableUnlessCte(name, alias, block);
                return next[0];
            }
        }
        if (c.kw(i, Keyword.ROWS) && c.kw(i + 1, Keyword.FROM) && c.is(i + 2, TokenKind.LEFT_PAREN)) {
            int after = c.skip(i + 2, to);
            c.scanExpression(i + 3, after - 1, block);
            return functionTail(after, to, next);
        }
        ParseContext.QualifiedName name = c.qualifiedName(i, to);
        if (name == null) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return c.skip(i, to);
        }
        int j = name.next();
        if (c.is(j, TokenKind.LEFT_PAREN)) {
            int after = c.skip(j, to);
            c.scanExpression(j + 1, after - 1, block);
            return functionTail(after, to, next);
        }
        if (op(j, "*")) {
            j++;
        }
        Optional<String> alias = c.alias(j, to, next);
        j = next[0];
        if (c.kw(j, Keyword.TABLESAMPLE)) {
            ParseContext.QualifiedName method = c.qualifiedName(j + 1, to);
            j = method == null ? j + 1 : method.next();
            j = c.skip(j, to);
            if (c.kw(j, Keyword.REPEATABLE)) {
                j = c.skip(j + 1, to);
            }
        }
        addTableUnlessCte(name, alias, block);
        return j;
    }

    private int functionTail(int i, int to, int[] next) {
        int j = i;
        if (c.kw(j, Keyword.WITH) && c.kw(j + 1, Keyword.ORDINALITY)) {
            j += 2;
        }
        c.alias(j, to, next);
        return next[0];
    }

    private void addTableUnlessCte(ParseContext.QualifiedName name, Optional<String> alias, int block) {
        if (name.parts().size() == 1 && c.isCte(name.last())) {
            return;
        }
        c.addTable(name, alias, TableRole.FROM, block);
    }

    // ---- select list

    private void projection(int a, int b, Shape shape) {
        int e = b;
        Optional<String> alias = Optional.empty();
        if (b - a >= 3 && c.kw(b - 2, Keyword.AS) && c.isWord(b - 1)) {
            alias = Optional.of(c.name(b - 1));
            e = b - 2;
        } else if (b - a >= 2 && isBareAlias(b - 1)) {
            alias = Optional.of(c.name(b - 1));
            e = b - 1;
        }
        ProjectionKind kind;
        Optional<String> starQualifier = Optional.empty();
        ColumnReference column = null;
        Aggregate aggregate = null;
        if (e - a == 1 && op(a, "*")) {
            kind = ProjectionKind.STAR;
        } else if (e - a >= 3 && op(e - 1, "*") && c.is(e - 2, TokenKind.DOT) && c.isWord(e - 3)) {
            kind = ProjectionKind.QUALIFIED_STAR;
            starQualifier = Optional.of(c.name(e - 3));
        } else if ((column = c.values.column(a, e)) != null) {
            kind = ProjectionKind.COLUMN;
        } else if ((aggregate = aggregate(a, e)) != null) {
            kind = ProjectionKind.AGGREGATE;
        } else {
            kind = ProjectionKind.EXPRESSION;
        }
        boolean containsAggregate = false;
        boolean window = false;
        for (int i = a; i < e; i++) {
            if (c.is(i, TokenKind.LEFT_PAREN) && c.startsQuery(i + 1) && c.close(i) > i) {
                i = c.close(i);
                continue;
            }
            if (c.kw(i, Keyword.OVER)) {
                window = true;
            } else if (c.isWord(i) && c.is(i + 1, TokenKind.LEFT_PAREN) && c.close(i + 1) > i
                    && AGGREGATES.contains(c.name(i))) {
                int after = c.close(i + 1) + 1;
                if (c.kw(after, Keyword.FILTER) && c.close(after + 1) > after) {
                    after = c.close(after + 1) + 1;
                }
                if (!c.kw(after, Keyword.OVER)) {
                    containsAggregate = true;
                }
            }
        }
        shape.projections.add(new ProjectionItem(c.range(a, b), c.range(a, e), c.text(a, e), alias, kind,
                starQualifier, Optional.ofNullable(column), Optional.ofNullable(aggregate), containsAggregate,
                window));
        shape.projectionKeys.add(c.normalizedText(a, e));
    }

    /** Whether token {@code k} is an alias written without AS after the expression that ends at {@code k - 1}. */
    private boolean isBareAlias(int k) {
        TokenKind kind = c.tokens.kind(k);
        if (kind == TokenKind.IDENTIFIER) {
            Keyword keyword = c.tokens.keyword(k);
            if (keyword != Keyword.NONE && (!keyword.isColumnIdentifier() || NOT_ALIASES.contains(keyword))) {
                return false;
            }
        } else if (kind != TokenKind.QUOTED_IDENTIFIER && kind != TokenKind.UNICODE_IDENTIFIER) {
            return false;
        }
        int p = k - 1;
        TokenKind previous = c.tokens.kind(p);
        if (previous == TokenKind.IDENTIFIER) {
            Keyword keyword = c.tokens.keyword(p);
            if (keyword == Keyword.NONE || VALUE_KEYWORDS.contains(keyword)) {
                return true;
            }
            return keyword.isColumnIdentifier() && keyword != Keyword.OVER && keyword != Keyword.AT
                    && keyword != Keyword.ZONE && keyword != Keyword.DOUBLE && !NOT_ALIASES.contains(keyword)
                    && keyword != Keyword.CHARACTER && keyword != Keyword.CHAR && keyword != Keyword.NATIONAL
                    && keyword != Keyword.BIT;
        }
        return previous == TokenKind.QUOTED_IDENTIFIER || previous == TokenKind.UNICODE_IDENTIFIER
                || previous.isString() || previous.isNumber() || previous.isParameter()
                || previous == TokenKind.RIGHT_PAREN || previous == TokenKind.RIGHT_BRACKET;
    }

    /** The mergeable aggregate that tokens {@code [a, e)} are exactly, or null. */
    private Aggregate aggregate(int a, int e) {
        if (!c.isWord(a) || !c.is(a + 1, TokenKind.LEFT_PAREN) || c.close(a + 1) != e - 1 || e - a < 4) {
            return null;
        }
        AggregateFunction function = switch (c.name(a)) {
            case "count" -> AggregateFunction.COUNT;
            case "sum" -> AggregateFunction.SUM;
            case "min" -> AggregateFunction.MIN;
            case "max" -> AggregateFunction.MAX;
            case "avg" -> AggregateFunction.AVG;
            default -> null;
        };
        if (function == null) {
            return null;
        }
        int start = a + 2;
        boolean distinct = false;
        if (c.kw(start, Keyword.DISTINCT)) {
            distinct = true;
            start++;
        } else if (c.kw(start, Keyword.ALL)) {
            start++;
        }
        int argumentEnd = e - 1;
        if (start >= argumentEnd) {
            return null;
        }
        boolean star = argumentEnd - start == 1 && op(start, "*");
        if (star && (function != AggregateFunction.COUNT || distinct)) {
            return null;
        }
        return new Aggregate(function, distinct, star, c.text(start, argumentEnd), c.range(start, argumentEnd));
    }

    // ---- GROUP BY and ORDER BY

    private void groupBy(int from, int to, Shape shape) {
        int i = from;
        if (c.kw(i, Keyword.ALL) || c.kw(i, Keyword.DISTINCT)) {
            i++;
        }
        for (int[] item : c.splitCommas(i, to)) {
            int a = item[0];
            int e = item[1];
            if (a >= e || c.kw(a, Keyword.ROLLUP) || c.kw(a, Keyword.CUBE) || c.kw(a, Keyword.GROUPING)
                    || (c.is(a, TokenKind.LEFT_PAREN) && c.close(a) == a + 1)) {
                c.gaps.add(AnalysisGap.GROUPING_SETS);
                continue;
            }
            ColumnReference column = c.values.column(a, e);
            int ordinal = ordinal(a, e);
            shape.groupBy.add(new GroupByItem(c.range(a, e), c.text(a, e), Optional.ofNullable(column), ordinal,
                    resolve(shape, column, ordinal, c.normalizedText(a, e))));
        }
    }

    private void orderBy(int from, int to, int block, Shape shape) {
        c.scanExpression(from, to, block);
        if (!shape.top) {
            return;
        }
        for (int[] item : c.splitCommas(from, to)) {
            int a = item[0];
            int b = item[1];
            int e = b;
            boolean nullsExplicit = false;
            boolean nullsFirst = false;
            if (e - a >= 3 && c.kw(e - 2, Keyword.NULLS) && (c.kw(e - 1, Keyword.FIRST) || c.kw(e - 1, Keyword.LAST))) {
                nullsExplicit = true;
                nullsFirst = c.kw(e - 1, Keyword.FIRST);
                e -= 2;
            }
            boolean descending = false;
            if (e - a >= 2 && c.kw(e - 1, Keyword.ASC)) {
                e--;
            } else if (e - a >= 2 && c.kw(e - 1, Keyword.DESC)) {
                descending = true;
                e--;
            } else {
                int using = c.find(a, e, Keyword.USING);
                if (using > a) {
                    if (using + 2 == e && op(using + 1, ">")) {
                        descending = true;
                    } else if (!(using + 2 == e && op(using + 1, "<"))) {
                        c.gaps.add(AnalysisGap.ORDER_BY_USING);
                    }
                    e = using;
                }
            }
            if (!nullsExplicit) {
                nullsFirst = descending;
            }
            if (a >= e) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                continue;
            }
            ColumnReference column = c.values.column(a, e);
            int ordinal = ordinal(a, e);
            shape.orderBy.add(new OrderByItem(c.range(a, b), c.range(a, e), c.text(a, e), Optional.ofNullable(column),
                    ordinal, descending, nullsFirst, resolve(shape, column, ordinal, c.normalizedText(a, e))));
        }
    }

    private int ordinal(int a, int e) {
        if (e - a != 1 || !c.is(a, TokenKind.INTEGER)) {
            return 0;
        }
        int start = c.tokens.start(a);
        int end = c.tokens.end(a);
        if (end - start > 9) {
            return 0;
        }
        int result = 0;
        for (int i = start; i < end; i++) {
            char digit = c.sql.charAt(i);
            if (digit < '0' || digit > '9') {
                return 0;
            }
            result = result * 10 + (digit - '0');
        }
        return result;
    }

    /**
     * The select-list item an ORDER BY or GROUP BY expression names: by ordinal, by output name
     * (for a bare name), by the same column, or by the same expression text.
     */
    private static OptionalInt resolve(Shape shape, ColumnReference column, int ordinal, String key) {
        List<ProjectionItem> projections = shape.projections;
        if (ordinal > 0) {
            return ordinal <= projections.size() ? OptionalInt.of(ordinal - 1) : OptionalInt.empty();
        }
        if (column != null && column.qualifier().isEmpty()) {
            for (int i = 0; i < projections.size(); i++) {
                ProjectionItem item = projections.get(i);
                if (item.kind() != ProjectionKind.STAR && item.kind() != ProjectionKind.QUALIFIED_STAR
                        && item.outputName().equals(column.name())) {
                    return OptionalInt.of(i);
                }
            }
        }
        if (column != null) {
            for (int i = 0; i < projections.size(); i++) {
                Optional<ColumnReference> candidate = projections.get(i).column();
                if (candidate.isPresent() && candidate.get().name().equals(column.name())
                        && (candidate.get().qualifier().isEmpty() || column.qualifier().isEmpty()
                        || candidate.get().qualifier().equals(column.qualifier()))) {
                    return OptionalInt.of(i);
                }
            }
        }
        for (int i = 0; i < projections.size(); i++) {
            if (shape.projectionKeys.get(i).equals(key)) {
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    // ---- LIMIT, OFFSET, FETCH, FOR UPDATE

    private int limit(int i, int to, int block, Shape shape) {
        int end = c.clauseEnd(i + 1, to, AFTER_LIMIT);
        c.scanExpression(i + 1, end, block);
        if (!shape.top) {
            return end;
        }
        if (end == i + 2 && (c.kw(i + 1, Keyword.ALL) || c.kw(i + 1, Keyword.NULL))) {
            shape.limit = Optional.empty();
            return end;
        }
        if (c.splitCommas(i + 1, end).size() > 1) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return end;
        }
        SqlValue value = c.values.value(i + 1, end);
        if (value == null) {
            c.gaps.add(AnalysisGap.COMPLEX_PAGINATION);
        } else {
            shape.limit = Optional.of(new PaginationValue(value, c.range(i, end)));
        }
        return end;
    }

    private int offset(int i, int to, int block, Shape shape) {
        int end = c.clauseEnd(i + 1, to, AFTER_OFFSET);
        c.scanExpression(i + 1, end, block);
        if (!shape.top) {
            return end;
        }
        int valueEnd = c.kw(end - 1, Keyword.ROW) || c.kw(end - 1, Keyword.ROWS) ? end - 1 : end;
        SqlValue value = c.values.value(i + 1, valueEnd);
        if (value == null) {
            c.gaps.add(AnalysisGap.COMPLEX_PAGINATION);
        } else {
            shape.offset = Optional.of(new PaginationValue(value, c.range(i, end)));
        }
        return end;
    }

    private int fetch(int i, int to, int block, Shape shape) {
        int j = i + 1;
        if (!c.kw(j, Keyword.FIRST) && !c.kw(j, Keyword.NEXT)) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return to;
        }
        j++;
        int rows = j;
        while (rows < to && !c.kw(rows, Keyword.ROW) && !c.kw(rows, Keyword.ROWS)) {
            rows = c.skip(rows, to);
        }
        if (rows >= to) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return to;
        }
        c.scanExpression(j, rows, block);
        int end = rows + 1;
        boolean withTies = false;
        if (c.kw(end, Keyword.ONLY)) {
            end++;
        } else if (c.kw(end, Keyword.WITH) && c.kw(end + 1, Keyword.TIES)) {
            withTies = true;
            end += 2;
        }
        if (!shape.top) {
            return end;
        }
        SqlValue value = rows == j
                ? new LiteralValue(LiteralKind.INTEGER, "1", Optional.empty(), SourceRange.at(c.startOffset(rows)))
                : c.values.value(j, rows);
        if (value == null) {
            c.gaps.add(AnalysisGap.COMPLEX_PAGINATION);
        } else {
            shape.limit = Optional.of(new PaginationValue(value, c.range(i, end)));
            shape.fetch = true;
            shape.withTies = withTies;
        }
        return end;
    }

    private int locking(int i, int to, int block, Shape shape) {
        int j = i;
        LockStrength strength = null;
        while (c.kw(j, Keyword.FOR)) {
            int k = j + 1;
            LockStrength current;
            if (c.kw(k, Keyword.UPDATE)) {
                current = LockStrength.UPDATE;
                k++;
            } else if (c.kw(k, Keyword.NO) && c.kw(k + 1, Keyword.KEY) && c.kw(k + 2, Keyword.UPDATE)) {
                current = LockStrength.NO_KEY_UPDATE;
                k += 3;
            } else if (c.kw(k, Keyword.SHARE)) {
                current = LockStrength.SHARE;
                k++;
            } else if (c.kw(k, Keyword.KEY) && c.kw(k + 1, Keyword.SHARE)) {
                current = LockStrength.KEY_SHARE;
                k += 2;
            } else {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return to;
            }
            if (strength == null) {
                strength = current;
            }
            if (c.kw(k, Keyword.OF)) {
                k++;
                ParseContext.QualifiedName name;
                while ((name = c.qualifiedName(k, to)) != null) {
                    c.addQualifier(name, block);
                    k = name.next();
                    if (!c.is(k, TokenKind.COMMA)) {
                        break;
                    }
                    k++;
                }
            }
            if (c.kw(k, Keyword.NOWAIT)) {
                k++;
            } else if (c.kw(k, Keyword.SKIP) && c.kw(k + 1, Keyword.LOCKED)) {
                k += 2;
            }
            j = k;
        }
        if (shape.top && strength != null) {
            shape.locking = Optional.of(new LockingClause(strength, c.range(i, j)));
        }
        return j;
    }

    /** What a query parse found, mutable while parsing; {@link #toStatement()} freezes it. */
    static final class Shape {
        final boolean top;
        final List<ProjectionItem> projections = new ArrayList<>();
        final List<String> projectionKeys = new ArrayList<>();
        int projectionsEnd;
        DistinctKind distinct = DistinctKind.NONE;
        Optional<SourceRange> distinctOn = Optional.empty();
        final List<GroupByItem> groupBy = new ArrayList<>(0);
        Optional<SourceRange> having = Optional.empty();
        final List<OrderByItem> orderBy = new ArrayList<>(0);
        int orderByInsertPosition;
        Optional<PaginationValue> limit = Optional.empty();
        Optional<PaginationValue> offset = Optional.empty();
        boolean fetch;
        boolean withTies;
        Optional<LockingClause> locking = Optional.empty();
        SetOperation setOperation = SetOperation.NONE;
        boolean valuesOnly;
        /** The shape of a parenthesised first term. */
        Shape inner;

        Shape(boolean top) {
            this.top = top;
        }

        void adoptCore(Shape other) {
            projections.addAll(other.projections);
            projectionKeys.addAll(other.projectionKeys);
            projectionsEnd = other.projectionsEnd;
            distinct = other.distinct;
            distinctOn = other.distinctOn;
            groupBy.addAll(other.groupBy);
            having = other.having;
            valuesOnly = other.valuesOnly;
        }

        void adoptTrailing(Shape other) {
            orderBy.addAll(other.orderBy);
            orderByInsertPosition = other.orderByInsertPosition;
            limit = other.limit;
            offset = other.offset;
            fetch = other.fetch;
            withTies = other.withTies;
            locking = other.locking;
        }

        SelectStatement toStatement() {
            return new SelectStatement(projections, projectionsEnd, distinct, distinctOn, groupBy, having, orderBy,
                    orderByInsertPosition, new Pagination(limit, offset, fetch, withTies), locking, setOperation,
                    valuesOnly);
        }
    }
}
