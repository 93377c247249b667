package io.ashlar.backend.execute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/** Reading, replacing and summing the row counts of PostgreSQL's command tags. */
final class CommandTagsTest {

    @Test
    void theCountIsTheLastWordWhenItIsANumber() {
        assertEquals(3, CommandTags.rowCount("INSERT 0 3"));
        assertEquals(0, CommandTags.rowCount("SELECT 0"));
        assertEquals(2147483657L, CommandTags.rowCount("UPDATE 2147483657"));
        assertEquals(-1, CommandTags.rowCount("BEGIN"));
        assertEquals(-1, CommandTags.rowCount("CREATE TABLE"));
        assertEquals(-1, CommandTags.rowCount("DECLARE CURSOR"));
        assertEquals(-1, CommandTags.rowCount("SELECT "));
        assertEquals(-1, CommandTags.rowCount(""));
    }

    @Test
    void aPortalReadInPiecesCountsTheRowsOfItsLastExecute() {
        assertEquals("SELECT 2", CommandTags.withRowCount("SELECT 5", 2));
        assertEquals("INSERT 0 1", CommandTags.withRowCount("INSERT 0 7", 1));
        assertEquals("BEGIN", CommandTags.withRowCount("BEGIN", 4));
    }

    @Test
    void shardsAndBatchRowsSumIntoTheTagOfTheWhole() {
        CommandTags.Sum inserts = new CommandTags.Sum();
        inserts.add("INSERT 0 1");
        inserts.add("INSERT 0 3");
        inserts.add("INSERT 0 0");
        assertEquals("INSERT 0 4", inserts.tag());
        CommandTags.Sum updates = new CommandTags.Sum();
        updates.add("UPDATE 2147483647");
        updates.add("UPDATE 10");
        assertEquals("UPDATE 2147483657", updates.tag());
        CommandTags.Sum plain = new CommandTags.Sum();
        plain.add("SET");
        plain.add("SET");
        assertFalse(plain.counted());
        assertEquals("SET", plain.tag());
        assertEquals("", new CommandTags.Sum().tag());
    }

    @Test
    void aTextThatLocksForTheSessionOrSetsSettingsSaysSoInAnyCase() {
        assertEquals(CommandTags.Effect.SESSION_STATE, CommandTags.textEffect("SELECT pg_advisory_lock(1)"));
        assertEquals(CommandTags.Effect.SESSION_STATE, CommandTags.textEffect("select PG_TRY_ADVISORY_LOCK(7, 8)"));
        assertEquals(CommandTags.Effect.SESSION_STATE, CommandTags.textEffect("SELECT 1, pg_catalog.Pg_Advisory_Lock($1)"));
        assertEquals(CommandTags.Effect.SETTINGS, CommandTags.textEffect("SELECT set_config('search_path', 'a', false)"));
        assertEquals(CommandTags.Effect.SETTINGS, CommandTags.textEffect("select SET_CONFIG($1, $2, false)"));
        // Words that start alike are not the functions (the text's end is reached without a match).
        assertEquals(CommandTags.Effect.NONE, CommandTags.textEffect("SELECT abalance FROM pgbench_accounts WHERE aid = 1"));
        assertEquals(CommandTags.Effect.NONE, CommandTags.textEffect("SELECT pg_advisory_unlock(1), settings FROM s"));
        assertEquals(CommandTags.Effect.NONE, CommandTags.textEffect("set_confi"));
        assertEquals(CommandTags.Effect.NONE, CommandTags.textEffect(""));
    }
}
