package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import java.util.ArrayList;
import java.util.List;

/**
 * The NOTICEs of the units of one statement in one list that only grows, as a client's answer
 * needs them: those the units raised before their first rows, then, at each later look, those
 * raised since (a function that raises one per row, read as the merge reads on). The session
 * sends a result's notices by position, so none is ever reordered or removed here.
 */
final class GatheredNotices {

    private final QueryResult[] units;
    private final int[] taken;
    private List<ErrorFields> all = List.of();

    GatheredNotices(QueryResult[] units) {
        this.units = units;
        this.taken = new int[units.length];
        now();
    }

    /** Every notice gathered so far, those raised since the last look at the end. */
    List<ErrorFields> now() {
        for (int i = 0; i < units.length; i++) {
            List<ErrorFields> raised = units[i].notices();
            int size = raised.size();
            if (size > taken[i]) {
                if (all.isEmpty()) {
                    all = new ArrayList<>();
                }
                all.addAll(raised.subList(taken[i], size));
                taken[i] = size;
            }
        }
        return all;
    }
}
