package io.ashlar.backend.sharding;

import io.ashlar.merge.RowCursor;
import java.util.List;

/** The shards' rows one shard after the other: the result of a write's RETURNING over several shards. */
final class ConcatenatingCursor implements RowCursor {

    private final List<RowCursor> shards;
    private int current;

    ConcatenatingCursor(List<RowCursor> shards) {
        this.shards = shards;
    }

    @Override
    public int columnCount() {
        return shards.get(0).columnCount();
    }

    @Override
    public int typeOid(int column) {
        return shards.get(0).typeOid(column);
    }

    @Override
    public boolean next() {
        while (current < shards.size()) {
            if (shards.get(current).next()) {
                return true;
            }
            current++;
        }
        return false;
    }

    @Override
    public byte[] value(int column) {
        return shards.get(current).value(column);
    }

    @Override
    public byte[][] row() {
        return shards.get(current).row();
    }

    @Override
    public void close() {
        for (RowCursor shard : shards) {
            shard.close();
        }
    }
}
