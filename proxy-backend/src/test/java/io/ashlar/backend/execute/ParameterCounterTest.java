package io.ashlar.backend.execute;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ParameterCounterTest {

    @Test
    void countsTheHighestParameterNumber() {
        assertEquals(0, ParameterCounter.count("select 1"));
        assertEquals(2, ParameterCounter.count("select $1, $2"));
        assertEquals(3, ParameterCounter.count("select $3 where a = $1"));
        assertEquals(12, ParameterCounter.count("update t set a = $12 where b = $1"));
    }

    @Test
    void skipsQuotedTextCommentsAndDollarQuotes() {
        assertEquals(1, ParameterCounter.count("select '$2', \"$3\", $1 -- $4\n"));
        assertEquals(1, ParameterCounter.count("select $1 /* $5 /* nested $6 */ $7 */"));
        assertEquals(1, ParameterCounter.count("select $$ $9 $$, $tag$ $8 $tag$, $1"));
        assertEquals(1, ParameterCounter.count("select E'it\\'s $4', $1"));
        assertEquals(1, ParameterCounter.count("select 'it''s $4', $1"));
    }

    @Test
    void theParametersOfAStatementBeingPreparedAreNotThisStatements() {
        assertEquals(0, ParameterCounter.count("PREPARE twice (int) AS SELECT $1 * 2"));
        assertEquals(0, ParameterCounter.count("  prepare p AS select $1"));
        assertEquals(1, ParameterCounter.count("select $1 as prepared"));
    }

    @Test
    void ignoresDollarsInsideIdentifiers() {
        assertEquals(0, ParameterCounter.count("select a$1 from t"));
    }
}
