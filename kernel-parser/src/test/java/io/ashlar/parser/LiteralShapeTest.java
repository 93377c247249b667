package io.ashlar.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.LiteralValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A statement rebound from the analysis of another text of its shape must equal its own analysis: the pgbench
 * and ORM shapes, constants that must stay as they are, a constant the analysis keeps outside the conditions, and
 * every statement of the golden corpus with its constants varied.
 */
class LiteralShapeTest {

    @Test
    void aPointSelectWithAnotherKeyIsItsOwnAnalysisWithoutParsing() {
        String sql = "SELECT abalance FROM pgbench_accounts WHERE aid = 123456";
        LiteralShape shape = shapeOf(sql);
        assertEquals(key(sql), key(sql.replace("123456", "987654")));
        assertNotEquals(key(sql), key(sql.replace("123456", "98765")),
                "another length is another shape: the positions after it differ");
        assertFalse(shape.verified());
        verify(shape, sql.replace("123456", "234567"));
        verify(shape, sql.replace("123456", "345678"));
        assertTrue(shape.verified());

        String other = sql.replace("123456", "918273");
        AnalyzedStatement rebound = assertRebindsAsAnalysed(shape, other);
        assertEquals("918273", ((LiteralValue) rebound.where().disjuncts().get(0).conditions().get(0).values().get(0)).value());
        assertEquals(other, rebound.sql());
    }

    @Test
    void aVerificationCountsOnlyWhenEveryCoveredConstantDiffers() {
        String sql = "SELECT * FROM t_order WHERE user_id = 17 AND order_id = 1001";
        LiteralShape shape = shapeOf(sql);
        verify(shape, "SELECT * FROM t_order WHERE user_id = 17 AND order_id = 2002");
        verify(shape, "SELECT * FROM t_order WHERE user_id = 18 AND order_id = 1001");
        assertFalse(shape.verified(), "a constant the same as the template's proves nothing about where it is kept");
        verify(shape, "SELECT * FROM t_order WHERE user_id = 18 AND order_id = 2002");
        verify(shape, "SELECT * FROM t_order WHERE user_id = 19 AND order_id = 3003");
        assertTrue(shape.verified());
        String other = "SELECT * FROM t_order WHERE user_id = 42 AND order_id = 4242";
        assertRebindsAsAnalysed(shape, other);
    }

    @Test
    void stringsVaryByCharacterClassAndTheirValueIsTheirText() {
        String sql = "SELECT id, email FROM users WHERE name = 'alice' AND status <> 'gone'";
        LiteralShape shape = shapeOf(sql);
        assertEquals(key(sql), key(sql.replace("alice", "bobby")));
        assertNotEquals(key(sql), key(sql.replace("alice", "12345")),
                "digits and letters are other shapes");
        verify(shape, sql.replace("alice", "bobby"));
        verify(shape, sql.replace("alice", "carol"));
        assertTrue(shape.verified());
        String other = sql.replace("alice", "david");
        assertRebindsAsAnalysed(shape, other);
        assertNull(shape.rebind(Lexer.tokenize(other.replace("gone", "away"))),
                "<> is no sharding condition: its constant is the template's or nothing");
        assertNull(key("SELECT * FROM users WHERE name = 'o''brien'"),
                "a quote inside is no plain string");
    }

    @Test
    void aConstantOutsideTheConditionsMustBeTheTemplates() {
        String sql = "UPDATE t_order SET status = 5 WHERE order_id = 7";
        LiteralShape shape = shapeOf(sql);
        verify(shape, "UPDATE t_order SET status = 5 WHERE order_id = 8");
        verify(shape, "UPDATE t_order SET status = 5 WHERE order_id = 9");
        assertTrue(shape.verified());
        assertNull(shape.rebind(Lexer.tokenize("UPDATE t_order SET status = 6 WHERE order_id = 8")));
        String same = "UPDATE t_order SET status = 5 WHERE order_id = 3";
        assertRebindsAsAnalysed(shape, same);
    }

    @Test
    void aShapeWhoseConstantTheAnalysisAlsoKeepsElsewhereIsRefused() {
        // The scalar subquery's condition covers the 5, and the select-list item keeps its text too.
        String sql = "SELECT (SELECT name FROM u WHERE u.id = 5) AS n FROM t WHERE t.id = 6";
        LiteralShape shape = shapeOf(sql);
        verify(shape, "SELECT (SELECT name FROM u WHERE u.id = 7) AS n FROM t WHERE t.id = 8");
        assertTrue(shape.refused());
        verify(shape, "SELECT (SELECT name FROM u WHERE u.id = 1) AS n FROM t WHERE t.id = 2");
        verify(shape, "SELECT (SELECT name FROM u WHERE u.id = 3) AS n FROM t WHERE t.id = 4");
        assertFalse(shape.verified(), "a refused shape stays refused");
    }

    @Test
    void constantsNotWorthAShapeHaveNone() {
        assertNull(key("SELECT * FROM t WHERE id = $1"));
        assertNull(key("SELECT * FROM t LIMIT 10"), "not after a comparison");
        assertNull(key("SELECT * FROM t WHERE id = 007"), "a leading zero");
        assertNull(key("SELECT * FROM t WHERE id = -5"), "a sign");
        assertNull(key("SELECT * FROM t WHERE id = 1.5"), "not an integer");
        assertNull(key("SELECT * FROM t WHERE id = 1234567890123456789"), "19 digits");
        assertNull(shapeOrNull("SELECT CASE WHEN a = 5 THEN 1 END FROM t"), "nothing covered: no shape");
        assertNotNull(key("SELECT CASE WHEN a = 5 THEN 1 END FROM t"));
    }

    /**
     * Every statement of the golden corpus with a shape, its varying constants changed (digits to digits, letters to
     * letters): once two variants verified the shape, every further variant's rebinding equals its analysis.
     */
    @Test
    void everyVerifiedShapeOfTheCorpusRebindsToTheAnalysis() throws IOException {
        List<Shaped> shapes = corpusShapes();
        int verified = 0;
        for (Shaped each : shapes) {
            if (!each.shape.verified()) {
                // (An uncovered constant varied too, as in an outer join's ON or a LIKE: no rebinding to compare.)
                assertFalse(each.shape.refused(), each.tokens.sql());
                continue;
            }
            verified++;
            for (int shift = 3; shift <= 7; shift++) {
                String variant = varied(each.tokens, shift);
                assertRebindsAsAnalysed(each.shape, variant);
            }
        }
        assertTrue(shapes.size() >= 40, "shapes " + shapes.size());
        assertTrue(verified >= 35, "verified " + verified + " of " + shapes.size());
    }

    @Test
    void aStringOfTheShapeIsKnownByItsCharactersWithoutLexing() {
        String sql = "SELECT abalance FROM pgbench_accounts WHERE aid = 123456";
        LiteralShape shape = shapeOf(sql);
        assertEquals(sql.length(), shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE aid = 654321"));
        assertEquals(sql.length(), shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE aid = 654321;"), "pgbench's ;");
        assertEquals(-1, shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE aid = 654321;;"));
        assertEquals(-1, shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE aid = 654321; SELECT 1"));
        assertEquals(-1, shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE aid = 054321"), "a leading zero");
        assertEquals(-1, shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE aid = 6543e1"));
        assertEquals(-1, shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE aid = 65432"));
        assertEquals(-1, shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE bid = 654321"));
        assertEquals(-1, shape.textEnd("SELECT abalance FROM pgbench_accounts WHERE aid = 654321 "));

        LiteralShape strings = shapeOf("SELECT * FROM users WHERE name = 'al-ice' AND id = 5");
        assertEquals(-1, strings.textEnd("SELECT * FROM users WHERE name = 'al ice' AND id = 5"), "other characters stay");
        assertEquals(-1, strings.textEnd("SELECT * FROM users WHERE name = 'a1-ice' AND id = 5"), "a digit for a letter");
        String other = "SELECT * FROM users WHERE name = 'bo-bby' AND id = 7";
        assertEquals(other.length(), strings.textEnd(other));
    }

    /**
     * Every verified shape of the corpus against thousands of strings a character or two away from a text of it
     * (digits, letters, quotes, spaces, operators, a leading zero, a {@code ;}): whatever {@link LiteralShape#textEnd}
     * takes for a text of the shape lexes to the shape's key and rebinds to its own analysis.
     */
    @Test
    void whatTheCharacterMatchTakesIsATextOfTheShape() throws IOException {
        java.util.Random random = new java.util.Random(20261129);
        String alphabet = "0123456789azAZ_ '\";=<>-.$(),e\n";
        int taken = 0;
        int tried = 0;
        for (Shaped each : corpusShapes()) {
            if (!each.shape.verified()) {
                continue;
            }
            TokenList tokens = each.tokens;
            LiteralShape shape = each.shape;
            String key = LiteralShape.key(tokens);
            List<Integer> masked = new ArrayList<>();
            for (int i = 0; i < key.length(); i++) {
                if (key.charAt(i) != tokens.sql().charAt(i)) {
                    masked.add(i);
                }
            }
            for (int round = 0; round < 300; round++) {
                StringBuilder mutated = new StringBuilder(varied(tokens, 3 + round % 5));
                for (int edits = 1 + random.nextInt(2); edits > 0; edits--) {
                    // Mostly within the constants, where the shape lets characters vary.
                    int at = random.nextInt(4) != 0 ? masked.get(random.nextInt(masked.size())) : random.nextInt(mutated.length());
                    mutated.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
                }
                if (random.nextInt(4) == 0) {
                    mutated.append(';');
                }
                String candidate = mutated.toString();
                tried++;
                int end = shape.textEnd(candidate);
                if (end < 0) {
                    continue;
                }
                taken++;
                String statement = candidate.substring(0, end);
                TokenList lexed = Lexer.tokenize(statement);
                assertEquals(LiteralShape.key(tokens), LiteralShape.key(lexed), candidate);
                assertEquals(StatementAnalyzer.analyze(statement), shape.rebind(statement), candidate);
            }
        }
        assertTrue(taken > 1000 && taken < tried, "taken " + taken + " of " + tried);
    }

    /** A statement of the corpus and its shape. */
    private record Shaped(TokenList tokens, LiteralShape shape) {
    }

    /**
     * Each statement of the golden corpus (but JDBC-style ones) that has a shape, the shape verified with two variants
     * of it, each character of its constants moved along its class by 1 and by 2.
     */
    private static List<Shaped> corpusShapes() throws IOException {
        List<Shaped> result = new ArrayList<>();
        for (GoldenFile.Case c : corpus()) {
            if (c.jdbc()) {
                continue;
            }
            TokenList tokens = Lexer.tokenize(c.sql());
            if (LiteralShape.key(tokens) == null) {
                continue;
            }
            LiteralShape shape = LiteralShape.of(StatementAnalyzer.analyze(tokens), tokens);
            if (shape == null) {
                continue;
            }
            for (int shift = 1; shift <= 2; shift++) {
                String variant = varied(tokens, shift);
                TokenList varied = Lexer.tokenize(variant);
                assertEquals(LiteralShape.key(tokens), LiteralShape.key(varied), variant);
                shape.verify(varied, StatementAnalyzer.analyze(varied));
            }
            result.add(new Shaped(tokens, shape));
        }
        return result;
    }

    private static LiteralShape shapeOf(String sql) {
        LiteralShape shape = shapeOrNull(sql);
        assertNotNull(shape, sql);
        return shape;
    }

    private static LiteralShape shapeOrNull(String sql) {
        TokenList tokens = Lexer.tokenize(sql);
        return LiteralShape.of(StatementAnalyzer.analyze(tokens), tokens);
    }

    /** The shape's rebinding of {@code sql}, which must equal its own analysis. */
    private static AnalyzedStatement assertRebindsAsAnalysed(LiteralShape shape, String sql) {
        AnalyzedStatement rebound = shape.rebind(Lexer.tokenize(sql));
        assertEquals(StatementAnalyzer.analyze(sql), rebound, sql);
        return rebound;
    }

    private static String key(String sql) {
        return LiteralShape.key(Lexer.tokenize(sql));
    }

    private static void verify(LiteralShape shape, String sql) {
        TokenList tokens = Lexer.tokenize(sql);
        shape.verify(tokens, StatementAnalyzer.analyze(tokens));
    }

    /** The text with each masked character of its shape moved {@code shift} along its class (a first digit stays 1-9). */
    private static String varied(TokenList tokens, int shift) {
        String sql = tokens.sql();
        String key = LiteralShape.key(tokens);
        StringBuilder result = new StringBuilder(sql.length());
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (key.charAt(i) == c) {
                result.append(c);
            } else if (c >= '0' && c <= '9') {
                boolean first = i == 0 || key.charAt(i - 1) == sql.charAt(i - 1);
                result.append(first ? (char) ('1' + (c - '1' + shift) % 9) : (char) ('0' + (c - '0' + shift) % 10));
            } else if (c >= 'a' && c <= 'z') {
                result.append((char) ('a' + (c - 'a' + shift) % 26));
            } else {
                result.append((char) ('A' + (c - 'A' + shift) % 26));
            }
        }
        return result.toString();
    }

    private static List<GoldenFile.Case> corpus() throws IOException {
        List<GoldenFile.Case> result = new ArrayList<>();
        for (String file : List.of("select.txt", "conditions.txt", "dml.txt", "ddl.txt", "utility.txt", "benchmarks.txt")) {
            result.addAll(GoldenFile.read(file).cases());
        }
        return result;
    }
}
