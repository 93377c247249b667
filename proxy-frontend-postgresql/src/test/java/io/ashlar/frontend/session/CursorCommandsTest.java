package io.ashlar.frontend.session;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The cheap test that tells a query string may hold a cursor statement (DECLARE, FETCH, MOVE, CLOSE) after its first. */
final class CursorCommandsTest {

    @Test
    void everyCursorKeywordIsFoundInAnyCaseAnywhere() {
        assertTrue(CursorCommands.mentionsCommand("BEGIN; DECLARE c CURSOR FOR SELECT 1"));
        assertTrue(CursorCommands.mentionsCommand("select 1; fetch 10 from c"));
        assertTrue(CursorCommands.mentionsCommand("SELECT 1; Move FORWARD 5 IN c"));
        assertTrue(CursorCommands.mentionsCommand("SELECT 1;CLOSE c"));
        assertTrue(CursorCommands.mentionsCommand("SELECT 1;cLoSe c"));
        assertTrue(CursorCommands.mentionsCommand("SELECT disclosed FROM t")); // a false alarm costs only a split
    }

    @Test
    void textsWithoutTheKeywordsAreRuledOut() {
        assertFalse(CursorCommands.mentionsCommand("SELECT abalance FROM pgbench_accounts WHERE aid = 12345;"));
        assertFalse(CursorCommands.mentionsCommand("UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = 3"));
        assertFalse(CursorCommands.mentionsCommand("SELECT decimal, feature, model, clock FROM t"));
        assertFalse(CursorCommands.mentionsCommand("fetc"));
        assertFalse(CursorCommands.mentionsCommand(""));
    }
}
