package io.ashlar.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ashlar.parser.lexer.SqlSyntaxException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Statements nested as deep as the analyzer reads are read; one bracket deeper is refused with
 * PostgreSQL's 54001 ({@code stack depth limit exceeded}) before any recursion, and past the depth
 * where PostgreSQL's own parser gives up, with its 42601 ({@code memory exhausted}): never a
 * StackOverflowError. The analysis runs on a thread with the stack the proxy's event loops have
 * (16 MiB), as a session's does.
 */
final class NestingLimitTest {

    private static final long SESSION_STACK_BYTES = 16L << 20;

    /** Shapes the analyzer reads by recursion, each nested {@code depth} brackets deep. */
    private static final java.util.List<IntFunction<String>> SHAPES = java.util.List.of(
            depth -> "SELECT " + "(".repeat(depth) + "1" + ")".repeat(depth),
            depth -> "SELECT * FROM t WHERE " + "(".repeat(depth) + "a = 1" + ")".repeat(depth),
            depth -> "SELECT " + "abs(".repeat(depth) + "1" + ")".repeat(depth),
            depth -> "SELECT * FROM " + "(SELECT * FROM ".repeat(depth - 1) + "(SELECT 1) x" + ") x".repeat(depth - 1),
            depth -> "SELECT ARRAY" + "[".repeat(depth) + "1" + "]".repeat(depth),
            depth -> "SELECT * FROM t WHERE a IN " + "(SELECT a FROM t WHERE a IN ".repeat(depth - 1) + "(1)" + ")".repeat(depth - 1));

    private static Throwable analyzeOnSessionStack(String sql) throws InterruptedException {
        AtomicReference<Throwable> result = new AtomicReference<>();
        Thread thread = new Thread(null, () -> {
            try {
                StatementAnalyzer.analyze(sql);
            } catch (Throwable e) {
                result.set(e);
            }
        }, "analyzer", SESSION_STACK_BYTES);
        thread.start();
        thread.join();
        return result.get();
    }

    @Test
    void statementsNestedAsDeepAsTheLimitAreRead() throws InterruptedException {
        for (IntFunction<String> shape : SHAPES) {
            String sql = shape.apply(StatementAnalyzer.MAX_NESTING);
            assertEquals(null, analyzeOnSessionStack(sql), sql.substring(0, 60));
        }
    }

    @Test
    void oneLevelDeeperIsStackDepthLimitExceeded() throws InterruptedException {
        for (IntFunction<String> shape : SHAPES) {
            String sql = shape.apply(StatementAnalyzer.MAX_NESTING + 1);
            SqlSyntaxException e = (SqlSyntaxException) analyzeOnSessionStack(sql);
            assertEquals("54001", e.sqlState(), sql.substring(0, 60));
            assertEquals("stack depth limit exceeded", e.getMessage());
            assertEquals("Ashlar reads statements whose parentheses and brackets nest at most 1000 levels deep: simplify the"
                    + " statement.", e.hint());
        }
    }

    /** Issue 13: 50,000 parentheses threw StackOverflowError in the session and dropped the connection. */
    @Test
    void fiftyThousandParenthesesAreWhatPostgresqlsParserRefuses() {
        SqlSyntaxException e = assertThrows(SqlSyntaxException.class,
                () -> StatementAnalyzer.analyze("SELECT " + "(".repeat(50_000) + "1" + ")".repeat(50_000)));
        assertEquals("42601", e.sqlState());
        assertEquals("memory exhausted at or near \"(\"", e.getMessage());
        // The bracket at which bison's stack of 10,000 states is full: "SELECT " and 9,999 before it.
        assertEquals("SELECT ".length() + StatementAnalyzer.POSTGRESQL_PARSER_DEPTH - 1, e.position());
    }
}
