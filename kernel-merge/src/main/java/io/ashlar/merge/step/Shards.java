package io.ashlar.merge.step;

import io.ashlar.merge.RowCursor;

import java.util.List;

/** Checks and closing shared by the steps that read shard cursors. */
final class Shards {

    private Shards() {
    }

    /** The shard cursors as an array, checked: at least one, all with the same column count. */
    static RowCursor[] toArray(List<RowCursor> shards) {
        if (shards.isEmpty()) {
            throw new IllegalArgumentException("a merge needs at least one shard result");
        }
        RowCursor[] result = shards.toArray(new RowCursor[0]);
        int columnCount = result[0].columnCount();
        for (RowCursor each : result) {
            if (each.columnCount() != columnCount) {
                closeAll(result);
                throw new IllegalArgumentException("shard results differ in column count: " + columnCount + " and " + each.columnCount());
            }
        }
        return result;
    }

    /** Closes every cursor, even when one fails; rethrows the first failure. */
    static void closeAll(RowCursor[] cursors) {
        RuntimeException failure = null;
        for (RowCursor each : cursors) {
            try {
                each.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
