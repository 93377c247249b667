package io.ashlar.backend.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.sharding.SequenceStatement.Kind;
import io.ashlar.parser.StatementAnalyzer;
import org.junit.jupiter.api.Test;

/** What {@link SequenceStatement} makes of statements; what they do on PostgreSQL is ShardedSequenceTest's. */
final class SequenceStatementTest {

    private static SequenceStatement of(String sql) {
        return SequenceStatement.of(StatementAnalyzer.analyze(sql));
    }

    private static Kind kind(String sql) {
        SequenceStatement result = of(sql);
        return result == null ? null : result.kind();
    }

    @Test
    void statementsWithoutSequencesAreNothing() {
        assertNull(of("SELECT * FROM t_order WHERE order_id = $1"));
        assertNull(of("SELECT serial_no, 'nextval' FROM t_order"));
        assertNull(of("INSERT INTO bmsql_history (h_c_id, h_w_id) VALUES ($1, $2)"));
        assertNull(of("ALTER TABLE bmsql_history ALTER COLUMN hist_id SET DEFAULT nextval('bmsql_hist_id_seq')"));
        assertNull(of("CREATE TABLE t (id int, serial_no text)"));
        assertNull(of("ALTER SEQUENCE s RESTART"));
        assertNull(of("ALTER SEQUENCE s OWNED BY t.id"));
        assertNull(of("DROP SEQUENCE s"));
    }

    @Test
    void createSequence() {
        SequenceStatement create = of("CREATE SEQUENCE IF NOT EXISTS public.\"Seq\" START 10");
        assertEquals(Kind.CREATE_SEQUENCE, create.kind());
        assertEquals("public.\"Seq\"", create.name());
        assertTrue(create.ifNotExists());
        assertEquals("s", of("create temp sequence s").name());
        assertFalse(of("create sequence s").ifNotExists());
    }

    @Test
    void ownedSequences() {
        assertEquals(Kind.CREATE_TABLE, kind("CREATE TABLE t (id bigserial, v text)"));
        assertEquals(Kind.CREATE_TABLE, kind("CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY)"));
    }

    @Test
    void alterSequence() {
        SequenceStatement restart = of("ALTER SEQUENCE s RESTART WITH 100");
        assertEquals(Kind.RESTART_SEQUENCE, restart.kind());
        assertEquals("100", restart.valueArgument());
        assertEquals(Kind.RESTART_SEQUENCE, kind("ALTER SEQUENCE IF EXISTS sch.s RESTART -5"));
        assertEquals(Kind.ALTER_REFUSED, kind("ALTER SEQUENCE s INCREMENT BY 5"));
        assertEquals(Kind.ALTER_REFUSED, kind("ALTER SEQUENCE s START WITH 5"));
        assertEquals(Kind.ALTER_REFUSED, kind("ALTER SEQUENCE s RESTART WITH 5 CACHE 10"));
    }

    @Test
    void setval() {
        SequenceStatement subquery = of("select setval('bmsql_hist_id_seq', (select max(hist_id) from bmsql_history))");
        assertEquals(Kind.SETVAL, subquery.kind());
        assertTrue(subquery.fromSubquery());
        assertEquals("select max(hist_id) from bmsql_history", subquery.valueQuery());
        SequenceStatement from = of("SELECT setval('s', max(id), true) FROM t;");
        assertEquals(Kind.SETVAL, from.kind());
        assertFalse(from.fromSubquery());
        assertEquals("SELECT max(id) FROM t", from.valueQuery());
        assertEquals("SELECT 42", of("SELECT setval('s', 42)").valueQuery());
        assertEquals(Kind.SETVAL_REFUSED, kind("SELECT setval('s', 42) + 1"));
        assertEquals(Kind.SETVAL_REFUSED, kind("SELECT 1, setval('s', 42)"));
        assertEquals(Kind.SETVAL_REFUSED, kind("UPDATE t SET v = setval('s', 42)"));
    }

    @Test
    void nextvalAndCurrval() {
        assertEquals(Kind.NEXTVAL, kind("SELECT nextval('s')"));
        assertEquals(Kind.NEXTVAL, kind("INSERT INTO t (id, v) VALUES (nextval('s'), currval('s'))"));
        assertEquals(Kind.CURRVAL, kind("SELECT currval('s')"));
        assertEquals(Kind.CURRVAL, kind("SELECT lastval()"));
    }
}
