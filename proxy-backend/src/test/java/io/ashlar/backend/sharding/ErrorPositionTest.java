package io.ashlar.backend.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Positions in a shard's rewritten statement read back as positions in the client's text. */
class ErrorPositionTest {

    private static final String CLIENT = "SELECT order_id FROM t_order ORDER BY nosuch";
    private static final String UNIT = "SELECT order_id, nosuch AS ORDER_BY_DERIVED_0 FROM t_order_1 ORDER BY nosuch";

    private static int at(String text, String token) {
        return text.indexOf(token) + 1;
    }

    @Test
    void positionsInTheTextBeforeAndAfterTheRewriteAreMoved() {
        assertEquals(8, ShardedExecution.positionInStatement(CLIENT, UNIT, 8));
        assertEquals(UNIT.length() + 1 - (UNIT.length() - CLIENT.length()),
                ShardedExecution.positionInStatement(CLIENT, UNIT, UNIT.length() + 1), "at end of input");
    }

    @Test
    void aNameTheRewriteRepeatedIsFoundWhereTheClientWroteIt() {
        // PostgreSQL reports the first reference it meets: in the unit, the copy the rewrite put in the select list.
        assertEquals(at(CLIENT, "nosuch"), ShardedExecution.positionInStatement(CLIENT, UNIT, at(UNIT, "nosuch")));
    }

    @Test
    void aNameTheClientWroteTwiceOrNotAtAllHasNoPosition() {
        String twice = "SELECT nosuch FROM t_order ORDER BY nosuch";
        String unit = "SELECT nosuch, nosuch AS ORDER_BY_DERIVED_0 FROM t_order_1 ORDER BY nosuch";
        assertEquals(0, ShardedExecution.positionInStatement(twice, unit, at(unit, "nosuch AS")));
        assertEquals(0, ShardedExecution.positionInStatement(CLIENT, UNIT, at(UNIT, "ORDER_BY_DERIVED_0")));
        assertEquals(0, ShardedExecution.positionInStatement(CLIENT, UNIT, at(UNIT, "t_order_1")), "a name only the shard has");
    }

    @Test
    void namesMatchAsWholeNamesIgnoringCase() {
        String client = "SELECT id FROM t ORDER BY Nosuch, nosuch_two";
        String unit = "SELECT id, nosuch AS D0, nosuch_two AS D1 FROM t_1 ORDER BY Nosuch, nosuch_two";
        assertEquals(at(client, "Nosuch"), ShardedExecution.positionInStatement(client, unit, at(unit, "nosuch AS")));
    }
}
