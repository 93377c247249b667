package io.ashlar.backend.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ashlar.backend.metadata.StandaloneSequences.Copy;
import io.ashlar.backend.metadata.StandaloneSequences.Sequence;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StandaloneSequencesTest {

    private static final long MAX = Long.MAX_VALUE;

    @Test
    void interleavedCopiesGiveTheFirstStartAndTheIncrementGiven() {
        // CREATE SEQUENCE s START 1 INCREMENT 50 over three data sources: 1 by 150, 51 by 150, 101 by 150.
        List<Sequence> logical = StandaloneSequences.logical(List.of(
                copies(sequence("s", 1, 150, 1, MAX)), copies(sequence("s", 51, 150, 1, MAX)), copies(sequence("s", 101, 150, 1, MAX))));
        assertEquals(List.of(sequence("s", 1, 50, 1, MAX)), logical);
        assertEquals("AS bigint INCREMENT BY 50 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1 NO CYCLE",
                logical.get(0).options());
    }

    @Test
    void descendingCopiesAreInterleavedDownwards() {
        // CREATE SEQUENCE d INCREMENT -1 over two: -1 by -2, -2 by -2.
        assertEquals(List.of(sequence("d", -1, -1, Long.MIN_VALUE, -1)), StandaloneSequences.logical(List.of(
                copies(sequence("d", -1, -2, Long.MIN_VALUE, -1)), copies(sequence("d", -2, -2, Long.MIN_VALUE, -1)))));
    }

    @Test
    void copiesNotInterleavedAreTakenAsTheFirstIs() {
        Sequence alike = sequence("alike", 1, 2, 1, MAX);
        Sequence onlyFirst = sequence("only_first", 1, 4, 1, MAX);
        assertEquals(List.of(alike, onlyFirst), StandaloneSequences.logical(List.of(copies(alike, onlyFirst), copies(alike))));
        assertEquals(List.of(sequence("one", 1, 10, 1, MAX)), StandaloneSequences.logical(List.of(copies(sequence("one", 1, 10, 1, MAX)))),
                "one data source: its copy is the sequence");
    }

    @Test
    void aSequenceOwnedOnAnyDataSourceIsItsTables() {
        // OWNED BY a sharded table's column: by NONE on a data source that holds no actual table of it.
        Sequence s = sequence("t_order_code", 1, 2, 1, MAX);
        assertEquals(List.of(), StandaloneSequences.logical(List.of(Map.of(s.qualifiedName(), new Copy(s, true)),
                Map.of(s.qualifiedName(), new Copy(sequence("t_order_code", 2, 2, 1, MAX), false)))));
    }

    private static Sequence sequence(String name, long start, long increment, long min, long max) {
        return new Sequence("public", name, "bigint", start, increment, min, max, 1, false);
    }

    private static Map<String, Copy> copies(Sequence... sequences) {
        Map<String, Copy> result = new LinkedHashMap<>();
        for (Sequence each : sequences) {
            result.put(each.qualifiedName(), new Copy(each, false));
        }
        return result;
    }
}
