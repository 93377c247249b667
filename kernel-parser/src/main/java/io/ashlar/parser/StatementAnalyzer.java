package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.StatementSplitter;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.ParameterMarker;
import io.ashlar.parser.statement.PrepareStatement;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.StatementBody;
import io.ashlar.parser.statement.OtherStatement;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TransactionStatement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Analyses one SQL statement into an {@link AnalyzedStatement}: the statement kind, every table
 * name with its position, the sharding conditions of each query block, the select list, ORDER BY,
 * GROUP BY and pagination of queries, INSERT rows, UPDATE assignments, DDL names and parameters.
 *
 * <p>It is a hand-written reader of PostgreSQL's grammar, not a full parser: it never rejects a
 * lexically valid statement. What it cannot read is reported in {@link AnalyzedStatement#gaps()},
 * with what it could find, so that a single data source can still pass the statement through. The
 * only exception it throws is {@link SqlSyntaxException}, for lexical errors and for a statement
 * nested deeper than {@link #MAX_NESTING} (its reading recurses; no stack overflow can come of it).
 *
 * <p>Analysis allocates freely and takes a few microseconds for ordinary statements; callers cache
 * the result per SQL text. The result is immutable and safe to share between threads.
 */
public final class StatementAnalyzer {

    /**
     * The deepest parentheses and brackets may nest in a statement the analyzer reads. Its reading
     * of nested queries and conditions recurses, and a session's stack must hold it with room to
     * spare (with the route, rewrite and merge after it): PostgreSQL gives up at about the same depth
     * for nested subqueries (its grammar's stack holds about 1,100), though it reads plain
     * parentheses about ten times deeper.
     */
    public static final int MAX_NESTING = 1000;

    /**
     * The depth at which PostgreSQL's parser runs out of stack whatever the statement: bison's
     * {@code YYMAXDEPTH} (10,000 states), at least one per level of nesting ({@code SELECT (((...1...)))}
     * fails from 9,994 levels, {@code memory exhausted at or near ")"}).
     */
    public static final int POSTGRESQL_PARSER_DEPTH = 10_000;

    private StatementAnalyzer() {
    }

    /** Analyses {@code sql} (its first statement, if it holds several), with {@code ?} as an operator. */
    public static AnalyzedStatement analyze(String sql) {
        return analyze(sql, false);
    }

    /**
     * Analyses {@code sql}.
     *
     * @param jdbcMarkers whether {@code ?} outside quotes is a parameter marker (JDBC style)
     * @throws SqlSyntaxException on an unterminated quoted string, identifier, dollar quote or comment
     */
    public static AnalyzedStatement analyze(String sql, boolean jdbcMarkers) {
        return analyze(Lexer.tokenize(sql, jdbcMarkers));
    }

    /** Analyses the first statement of already tokenized text. */
    public static AnalyzedStatement analyze(TokenList tokens) {
        List<StatementRange> statements = StatementSplitter.split(tokens);
        if (statements.isEmpty()) {
            ParseContext empty = new ParseContext(tokens, 0);
            empty.newBlock(-1);
            return new AnalyzedStatement(tokens.sql(), StatementKind.EMPTY, "", new OtherStatement(), List.of(),
                    List.of(), empty.finishBlocks(), List.of(), 0, Set.of(), List.of(), false);
        }
        StatementRange range = statements.get(0);
        ParseContext c = new ParseContext(tokens, range.endToken());
        if (statements.size() > 1) {
            c.gaps.add(AnalysisGap.MULTIPLE_STATEMENTS);
        }
        c.newBlock(-1);
        int first = range.firstToken();
        String command = command(c, first);
        SessionReferences session = SessionReferences.scan(tokens, first, range.endToken());
        Dispatch dispatch;
        try {
            dispatch = dispatch(c, first, range.endToken());
        } catch (RuntimeException unexpected) {
            // A bug must not take the proxy down: report the statement as unanalysed instead.
            ParseContext fallback = new ParseContext(tokens, range.endToken());
            fallback.newBlock(-1);
            return new AnalyzedStatement(tokens.sql(), StatementKind.OTHER, command, new OtherStatement(), List.of(),
                    List.of(), fallback.finishBlocks(), parameters(tokens, first, range.endToken()),
                    parameterCount(tokens, first, range.endToken(), EnumSet.noneOf(AnalysisGap.class)),
                    EnumSet.of(AnalysisGap.ANALYSIS_FAILED), session.values(), session.catalogFunctions());
        }
        List<QueryBlock> blocks = c.finishBlocks();
        List<ParameterMarker> parameters = List.of();
        int parameterCount = 0;
        if (takesParameters(dispatch.body)) {
            parameters = parameters(tokens, first, range.endToken());
            parameterCount = parameterCount(tokens, first, range.endToken(), c.gaps);
        }
        return new AnalyzedStatement(tokens.sql(), dispatch.kind, command, dispatch.body, c.tables, c.indexes, blocks,
                parameters, parameterCount, c.gaps, session.values(), session.catalogFunctions());
    }

    private record Dispatch(StatementKind kind, StatementBody body) {
    }

    /**
     * Whether {@code $n} markers in the text are the statement's own parameters. In
     * {@code PREPARE name AS ...} they belong to the prepared statement (EXECUTE supplies them), and
     * in a routine body ({@code CREATE FUNCTION ... BEGIN ATOMIC}) they are the routine's arguments.
     */
    private static boolean takesParameters(StatementBody body) {
        if (body instanceof PrepareStatement) {
            return false;
        }
        return !(body instanceof DdlStatement ddl && ddl.kind() == DdlKind.CREATE_OTHER
                && (ddl.objectType().equals("function") || ddl.objectType().equals("procedure")));
    }

    private static Dispatch dispatch(ParseContext c, int i, int to) {
        Keyword keyword = c.keyword(i);
        UtilityParser utility = new UtilityParser(c);
        DdlParser ddl = new DdlParser(c);
        switch (keyword) {
            case SELECT, VALUES, TABLE -> {
                return new Dispatch(StatementKind.SELECT, c.queries.parse(i, to, 0, -1, true).toStatement());
            }
            case WITH -> {
                int main = c.queries.with(i, to);
                if (c.startsQuery(main)) {
                    return new Dispatch(StatementKind.SELECT, c.queries.body(main, to, 0, -1, true).toStatement());
                }
                return dml(c, main, to);
            }
            case INSERT, UPDATE, DELETE, MERGE -> {
                return dml(c, i, to);
            }
            case COPY -> {
                return orOther(c, StatementKind.COPY, c.dml.copy(i, to, 0));
            }
            case CREATE -> {
                return new Dispatch(StatementKind.DDL, ddl.create(i, to));
            }
            case ALTER -> {
                return new Dispatch(StatementKind.DDL, ddl.alter(i, to));
            }
            case DROP -> {
                return new Dispatch(StatementKind.DDL, ddl.drop(i, to));
            }
            case TRUNCATE -> {
                return new Dispatch(StatementKind.DDL, ddl.truncate(i, to));
            }
            case COMMENT -> {
                DdlStatement comment = ddl.comment(i, to);
                return comment != null ? new Dispatch(StatementKind.DDL, comment) : new Dispatch(StatementKind.OTHER, new OtherStatement());
            }
            case BEGIN -> {
                return new Dispatch(StatementKind.TRANSACTION, utility.begin(i, to));
            }
            case START -> {
                return new Dispatch(StatementKind.TRANSACTION, utility.start(i, to));
            }
            case COMMIT, END -> {
                return new Dispatch(StatementKind.TRANSACTION, utility.commit(i, to));
            }
            case ROLLBACK, ABORT -> {
                return new Dispatch(StatementKind.TRANSACTION, utility.rollback(i, to));
            }
            case SAVEPOINT -> {
                return new Dispatch(StatementKind.TRANSACTION, utility.savepoint(i, to));
            }
            case RELEASE -> {
                return new Dispatch(StatementKind.TRANSACTION, utility.release(i, to));
            }
            case PREPARE -> {
                StatementBody body = utility.prepare(i, to);
                return new Dispatch(body instanceof TransactionStatement ? StatementKind.TRANSACTION
                        : body instanceof OtherStatement ? StatementKind.OTHER : StatementKind.PREPARE, body);
            }
            case SET -> {
                StatementBody body = utility.set(i, to);
                return new Dispatch(body instanceof TransactionStatement ? StatementKind.TRANSACTION
                        : body instanceof OtherStatement ? StatementKind.OTHER : StatementKind.SET, body);
            }
            case RESET -> {
                return new Dispatch(StatementKind.RESET, utility.reset(i, to));
            }
            case SHOW -> {
                return new Dispatch(StatementKind.SHOW, utility.show(i, to));
            }
            case EXECUTE -> {
                return new Dispatch(StatementKind.EXECUTE, utility.execute(i, to));
            }
            case DEALLOCATE -> {
                return new Dispatch(StatementKind.DEALLOCATE, utility.deallocate(i, to));
            }
            case DISCARD -> {
                return new Dispatch(StatementKind.DISCARD, utility.discard(i, to));
            }
            case DECLARE -> {
                return cursor(new CursorParser(c).declare(i, to));
            }
            case FETCH -> {
                return cursor(new CursorParser(c).fetch(i, to, false));
            }
            case CLOSE -> {
                return cursor(new CursorParser(c).close(i, to));
            }
            case LOCK -> {
                utility.lock(i, to);
                return new Dispatch(StatementKind.OTHER, new OtherStatement());
            }
            case ANALYZE, ANALYSE -> {
                utility.maintenance(i, to);
                return new Dispatch(StatementKind.OTHER, new OtherStatement());
            }
            case EXPLAIN -> {
                explain(c, i, to);
                return new Dispatch(StatementKind.OTHER, new OtherStatement());
            }
            default -> {
                if (c.is(i, TokenKind.LEFT_PAREN) && c.startsQuery(i)) {
                    return new Dispatch(StatementKind.SELECT, c.queries.parse(i, to, 0, -1, true).toStatement());
                }
                if (c.word(i, "move")) {
                    return cursor(new CursorParser(c).fetch(i, to, true));
                }
                if (c.word(i, "vacuum")) {
                    utility.maintenance(i, to);
                }
                return new Dispatch(StatementKind.OTHER, new OtherStatement());
            }
        }
    }

    private static Dispatch cursor(StatementBody body) {
        return new Dispatch(body instanceof OtherStatement ? StatementKind.OTHER : StatementKind.CURSOR, body);
    }

    private static Dispatch dml(ParseContext c, int i, int to) {
        StatementKind kind = switch (c.keyword(i)) {
            case INSERT -> StatementKind.INSERT;
            case UPDATE -> StatementKind.UPDATE;
            case DELETE -> StatementKind.DELETE;
            case MERGE -> StatementKind.MERGE;
            default -> StatementKind.OTHER;
        };
        if (kind == StatementKind.OTHER) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            c.scanExpression(i, to, 0);
            return new Dispatch(kind, new OtherStatement());
        }
        return orOther(c, kind, c.dml.parse(i, to, 0));
    }

    private static Dispatch orOther(ParseContext c, StatementKind kind, StatementBody body) {
        if (body == null) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return new Dispatch(StatementKind.OTHER, new OtherStatement());
        }
        return new Dispatch(kind, body);
    }

    /** EXPLAIN [ANALYZE] [VERBOSE] [(options)] statement: records the explained statement's tables. */
    private static void explain(ParseContext c, int i, int to) {
        int j = i + 1;
        if (c.is(j, TokenKind.LEFT_PAREN)) {
            j = c.skip(j, to);
        }
        while (c.kw(j, Keyword.ANALYZE) || c.kw(j, Keyword.ANALYSE) || c.kw(j, Keyword.VERBOSE)) {
            j++;
        }
        if (j < to) {
            dispatch(c, j, to);
        }
    }

    private static String command(ParseContext c, int first) {
        if (c.is(first, TokenKind.IDENTIFIER)) {
            return c.tokens.text(first).toLowerCase(Locale.ROOT);
        }
        return c.is(first, TokenKind.LEFT_PAREN) && c.startsQuery(first) ? "select" : c.tokens.text(first);
    }

    private static List<ParameterMarker> parameters(TokenList tokens, int from, int to) {
        List<ParameterMarker> result = new ArrayList<>(0);
        for (int i = from; i < to; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind.isParameter()) {
                result.add(new ParameterMarker(new SourceRange(tokens.start(i), tokens.end(i)),
                        tokens.parameterNumber(i), kind == TokenKind.JDBC_PARAMETER));
            }
        }
        return result;
    }

    private static int parameterCount(TokenList tokens, int from, int to, Set<AnalysisGap> gaps) {
        int highest = 0;
        int jdbc = 0;
        for (int i = from; i < to; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.PARAMETER) {
                highest = Math.max(highest, tokens.parameterNumber(i));
            } else if (kind == TokenKind.JDBC_PARAMETER) {
                jdbc++;
            }
        }
        if (highest > 0 && jdbc > 0) {
            gaps.add(AnalysisGap.MIXED_PARAMETER_STYLES);
        }
        return Math.max(highest, jdbc);
    }
}
