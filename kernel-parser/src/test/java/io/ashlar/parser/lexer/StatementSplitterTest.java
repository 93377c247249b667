package io.ashlar.parser.lexer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatementSplitterTest {

    private static List<String> split(String sql) {
        List<String> result = new ArrayList<>();
        for (StatementRange range : StatementSplitter.split(sql)) {
            result.add(range.text(sql));
        }
        return result;
    }

    @Test
    void splitsOnSemicolons() {
        assertEquals(List.of("SELECT 1", "SELECT 2"), split("SELECT 1; SELECT 2"));
        assertEquals(List.of("SELECT 1", "SELECT 2"), split("SELECT 1;\n SELECT 2;\n"));
    }

    @Test
    void dropsEmptyStatements() {
        assertEquals(List.of("SELECT 1", "SELECT 2"), split(";;SELECT 1;;; ;SELECT 2;;"));
        assertEquals(List.of(), split(""));
        assertEquals(List.of(), split("   \n\t"));
        assertEquals(List.of(), split("-- only a comment"));
        assertEquals(List.of(), split("/* a */ ; -- b\n ;"));
    }

    @Test
    void semicolonsInsideQuotesCommentsAndParenthesesDoNotSplit() {
        assertEquals(List.of("SELECT ';', \";\", $$;$$, E'\\';' /* ; */", "SELECT 2 -- ;"),
                split("SELECT ';', \";\", $$;$$, E'\\';' /* ; */; SELECT 2 -- ;"));
        assertEquals(List.of("CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2))",
                        "SELECT 1"),
                split("CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2)); SELECT 1"));
    }

    @Test
    void keepsLeadingHintComments() {
        String sql = "/* hint: ds_0 */ SELECT 1; -- next\nSELECT 2";
        assertEquals(List.of("/* hint: ds_0 */ SELECT 1", "-- next\nSELECT 2"), split(sql));
    }

    @Test
    void beginAtomicBodiesAreOneStatement() {
        String function = "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql BEGIN ATOMIC "
                + "SELECT CASE WHEN x > 0 THEN 1 ELSE 0 END; SELECT x; END";
        assertEquals(List.of(function, "SELECT 1"), split(function + "; SELECT 1"));
        String procedure = "CREATE OR REPLACE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (1); END";
        assertEquals(List.of(procedure, "BEGIN", "COMMIT"), split(procedure + ";BEGIN;COMMIT"));
        // BEGIN as a transaction statement is not a block
        assertEquals(List.of("BEGIN", "SELECT 1", "END"), split("BEGIN; SELECT 1; END;"));
    }

    @Test
    void rangesCarryTokenIndexes() {
        String sql = "SELECT 1; SELECT 2 ,3";
        List<StatementRange> ranges = StatementSplitter.split(sql);
        assertEquals(new StatementRange(0, 8, 0, 2), ranges.get(0));
        assertEquals(new StatementRange(10, 21, 3, 7), ranges.get(1));
    }

    @Test
    void unterminatedQuoteIsAnError() {
        assertThrows(SqlSyntaxException.class, () -> StatementSplitter.split("SELECT 1; SELECT 'x"));
    }
}
