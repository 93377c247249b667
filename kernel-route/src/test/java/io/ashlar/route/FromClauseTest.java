package io.ashlar.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.TokenList;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The join structure read from FROM lists: which side each outer join keeps, and what USING joins on. */
class FromClauseTest {

    private static FromClause read(String sql) {
        TokenList tokens = Lexer.tokenize(sql);
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.isKeyword(i, Keyword.FROM)) {
                return FromClause.read(tokens, i + 1);
            }
        }
        throw new IllegalArgumentException("no FROM in " + sql);
    }

    private static String text(String sql, FromClause.Span span) {
        return sql.substring(span.start(), span.end());
    }

    @Test
    void joinsAssociateToTheLeft() {
        String sql = "SELECT * FROM a LEFT OUTER JOIN b ON a.x = b.x JOIN c USING (y, \"Z\") WHERE a.x = 1";
        FromClause from = read(sql);
        assertTrue(from.understood());
        assertTrue(from.whereFollows());
        assertEquals(1, from.items());
        List<FromClause.Join> joins = from.joins();
        assertEquals(2, joins.size());
        assertEquals(FromClause.LEFT, joins.get(0).kind());
        assertEquals("a", text(sql, joins.get(0).left()));
        assertEquals("b", text(sql, joins.get(0).right()));
        assertTrue(joins.get(0).leftPlain() && joins.get(0).rightPlain());
        assertEquals(FromClause.INNER, joins.get(1).kind());
        assertEquals("a LEFT OUTER JOIN b ON a.x = b.x", text(sql, joins.get(1).left()));
        assertEquals(List.of("y", "Z"), joins.get(1).using());
        assertFalse(joins.get(1).leftPlain());
    }

    @Test
    void parenthesizedJoinsAndFunctionsInConditionsAreReadAsItems() {
        String sql = "SELECT * FROM (a JOIN b ON true) AS ab RIGHT JOIN c ON left(c.x, 1) = 'a' FULL JOIN d ON (c.y = d.y) ORDER BY 1";
        List<FromClause.Join> joins = read(sql).joins();
        assertEquals(3, joins.size());
        assertEquals(FromClause.INNER, joins.get(0).kind());
        assertEquals(FromClause.RIGHT, joins.get(1).kind());
        assertEquals("(a JOIN b ON true) AS ab", text(sql, joins.get(1).left()));
        assertEquals("c", text(sql, joins.get(1).right()));
        assertEquals(FromClause.FULL, joins.get(2).kind());
        assertEquals("d", text(sql, joins.get(2).right()));
    }

    @Test
    void subqueriesFunctionsAndSamplesAreItems() {
        String sql = "SELECT * FROM generate_series(1, 3) WITH ORDINALITY AS g(x, n) CROSS JOIN LATERAL (SELECT 1 FROM e LEFT JOIN f ON true) s, "
                + "t TABLESAMPLE bernoulli (10) REPEATABLE (1) NATURAL LEFT JOIN ONLY public.u * uu";
        FromClause from = read(sql);
        assertTrue(from.understood());
        assertFalse(from.whereFollows());
        assertEquals(2, from.items());
        assertEquals(2, from.joins().size());
        assertEquals(FromClause.CROSS, from.joins().get(0).kind());
        assertFalse(from.joins().get(0).rightPlain());
        assertTrue(from.joins().get(1).natural());
        assertEquals(FromClause.LEFT, from.joins().get(1).kind());
        assertEquals("ONLY public.u * uu", text(sql, from.joins().get(1).right()));
    }

    @Test
    void whatCannotBeReadIsSaidSo() {
        assertFalse(read("SELECT * FROM a LEFT JOIN").understood());
        assertFalse(read("SELECT * FROM a LEFT JOIN (b JOIN c ON true ON true").understood());
        assertFalse(read("SELECT * FROM a b c").understood());
    }
}
