package io.ashlar.backend.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Copies of a serial sequence as Ashlar interleaves them over a sharded table's actual tables are no difference. */
class UnstaggeredSequencesTest {

    private static final String OPTIONS = "AS integer INCREMENT BY %d MINVALUE %d MAXVALUE 2147483647 START WITH %d CACHE 1 NO CYCLE";

    @Test
    void copyJOfNStartsJStepsPastTheFirst() {
        TableMetadata first = table(String.format(OPTIONS, 4, 1, 1));
        assertEquals("", first.difference(SchemaLoader.unstaggered(first, table(String.format(OPTIONS, 4, 1, 2)), 1, 4)));
        assertEquals("", first.difference(SchemaLoader.unstaggered(first, table(String.format(OPTIONS, 4, 1, 4)), 3, 4)));
        TableMetadata descending = table(String.format(OPTIONS, -2, -100, -1));
        assertEquals("", descending.difference(SchemaLoader.unstaggered(descending, table(String.format(OPTIONS, -2, -100, -2)), 1, 2)));
    }

    @Test
    void otherDifferencesStay() {
        TableMetadata first = table(String.format(OPTIONS, 4, 1, 1));
        TableMetadata wrongStart = table(String.format(OPTIONS, 4, 1, 3));
        assertEquals(wrongStart, SchemaLoader.unstaggered(first, wrongStart, 1, 4));
        TableMetadata otherIncrement = table(String.format(OPTIONS, 8, 1, 2));
        assertEquals(otherIncrement, SchemaLoader.unstaggered(first, otherIncrement, 1, 4));
        TableMetadata otherMinimum = table(String.format(OPTIONS, 4, 2, 2));
        assertEquals(otherMinimum, SchemaLoader.unstaggered(first, otherMinimum, 1, 4));
    }

    private static TableMetadata table(String options) {
        return new TableMetadata("public", "t_line", false, List.of(new ColumnMetadata("id", "integer", true, "nextval('t_line_id_seq'::regclass)", "", "", "", "")),
                List.of(), List.of(), List.of(new SequenceMetadata("t_line_id_seq", "id", options)), "");
    }
}
