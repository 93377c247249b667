package io.ashlar.backend.datasource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class InsertRowsRewriteTest {

    @Test
    void singleRowInsertBecomesManyRowsWithRenumberedMarkers() {
        InsertRowsRewrite rewrite = InsertRowsRewrite.of("INSERT INTO t_order_1 (id, note) VALUES ($1, $2 || '$9 (not a marker)')", 2);
        assertEquals("INSERT INTO t_order_1 (id, note) VALUES ($1, $2 || '$9 (not a marker)'), ($3, $4 || '$9 (not a marker)'),"
                + " ($5, $6 || '$9 (not a marker)')", rewrite.sql(3));
        assertEquals(128, rewrite.chunkRows());
        assertEquals(32767 / 300, InsertRowsRewrite.of("insert into t values (" + "$1,".repeat(299) + "$300)", 300).chunkRows());
    }

    @Test
    void functionCallsAndCastsInTheRowStay() {
        InsertRowsRewrite rewrite = InsertRowsRewrite.of("insert into t(a, b) values (lower($2::text), coalesce($1, now()));", 2);
        assertEquals("insert into t(a, b) values (lower($2::text), coalesce($1, now())), (lower($4::text), coalesce($3, now()))",
                rewrite.sql(2));
    }

    @Test
    void markersInsideStringsOfEveryKindStay() {
        // E'' with a backslash-escaped quote, and a dollar quote: a '$2' inside either is text, not a marker.
        InsertRowsRewrite rewrite = InsertRowsRewrite.of("INSERT INTO t VALUES ($1, E'it\\'s $2', $tag$ $2 $tag$, $2)", 2);
        assertEquals("INSERT INTO t VALUES ($1, E'it\\'s $2', $tag$ $2 $tag$, $2), ($3, E'it\\'s $2', $tag$ $2 $tag$, $4)",
                rewrite.sql(2));
    }

    @Test
    void statementsThatAreNotOneRowAtTheEndAreLeftAlone() {
        assertNull(InsertRowsRewrite.of("INSERT INTO t VALUES ($1) ON CONFLICT DO NOTHING", 1));
        assertNull(InsertRowsRewrite.of("INSERT INTO t VALUES ($1) RETURNING id", 1));
        assertNull(InsertRowsRewrite.of("INSERT INTO t SELECT $1", 1));
        assertNull(InsertRowsRewrite.of("UPDATE t SET a = $1", 1));
        assertNull(InsertRowsRewrite.of("INSERT INTO t VALUES (1)", 0));
    }
}
