package io.ashlar.backend.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.execute.ErrorFields;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The notices of DROP ... CASCADE from several data sources, merged as PostgreSQL words one ({@code reportDependentObjects}). */
class DropCascadeNoticesTest {

    @Test
    void eachObjectOnceInOneNotice() {
        List<ErrorFields> notices = new ArrayList<>(List.of(
                notice("drop cascades to 2 other objects", "drop cascades to column m of table t_order\ndrop cascades to view v_single"),
                ErrorFields.of("NOTICE", "00000", "something else"),
                notice("drop cascades to 2 other objects", "drop cascades to column m of table t_order\ndrop cascades to column m of table t_order")));
        assertTrue(LogicalSession.mergeDropCascades(notices));
        assertEquals(2, notices.size());
        assertEquals("drop cascades to 2 other objects", notices.get(0).message());
        assertEquals("drop cascades to column m of table t_order\ndrop cascades to view v_single", notices.get(0).field('D'));
        assertEquals("something else", notices.get(1).message());
    }

    @Test
    void oneObjectIsNamedInTheMessage() {
        List<ErrorFields> notices = new ArrayList<>(List.of(
                notice("drop cascades to 2 other objects", "drop cascades to column m of table t_order\ndrop cascades to column m of table t_order"),
                ErrorFields.of("NOTICE", "00000", "drop cascades to column m of table t_order")));
        assertTrue(LogicalSession.mergeDropCascades(notices));
        assertEquals(1, notices.size());
        assertEquals("drop cascades to column m of table t_order", notices.get(0).message());
        assertEquals("", notices.get(0).field('D'));
    }

    @Test
    void aListPostgresqlCutShortAndADistinctNoticeAreLeftAsTheyAre() {
        List<ErrorFields> cut = new ArrayList<>(List.of(notice("drop cascades to 120 other objects",
                "drop cascades to column a of table t\nand 20 other objects (see server log for list)")));
        assertFalse(LogicalSession.mergeDropCascades(cut));
        List<ErrorFields> alone = new ArrayList<>(List.of(notice("drop cascades to 2 other objects",
                "drop cascades to column a of table t\ndrop cascades to column b of table t")));
        assertFalse(LogicalSession.mergeDropCascades(alone));
    }

    private static ErrorFields notice(String message, String detail) {
        return new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'D'}, new String[] {"NOTICE", "NOTICE", "00000", message, detail});
    }
}
