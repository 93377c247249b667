package io.ashlar.rewrite.template;

import io.ashlar.route.RouteUnit;
import io.ashlar.route.TableMapping;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The SQL a {@link SqlTemplate} made for each unit shape it met (the unit's logic → actual tables
 * and, for a split INSERT, its rows), so that the next execution routed the same way reuses the
 * string. A small open-addressed table of immutable entries: a hit is a few volatile reads and
 * no allocation; a miss publishes with compare-and-set, and when the probed slots are full it
 * overwrites one, so the cache stays bounded whatever the statement's number of shapes.
 */
final class UnitCache {

    private static final int SLOTS = 64;
    private static final int PROBES = 4;

    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
    private final boolean keyedByRows;

    /** @param keyedByRows whether the unit's INSERT rows change the SQL */
    UnitCache(boolean keyedByRows) {
        this.keyedByRows = keyedByRows;
    }

    /** A cached rewrite of one unit shape. */
    record Entry(int hash, List<TableMapping> tables, int[] rows, String sql, int[] parameterMap) {
    }

    int hash(RouteUnit unit) {
        int result = 1;
        List<TableMapping> tables = unit.tables();
        for (int i = 0, n = tables.size(); i < n; i++) {
            TableMapping mapping = tables.get(i);
            result = 31 * (31 * result + mapping.logicTable().hashCode()) + mapping.actualTable().hashCode();
        }
        if (keyedByRows) {
            result = 31 * result + Arrays.hashCode(unit.insertRows());
        }
        return result ^ (result >>> 16);
    }

    Entry find(RouteUnit unit, int hash) {
        for (int i = 0; i < PROBES; i++) {
            Entry entry = slots.get((hash + i) & (SLOTS - 1));
            if (entry == null) {
                return null;
            }
            if (entry.hash == hash && entry.tables.equals(unit.tables())
                    && (!keyedByRows || Arrays.equals(entry.rows, unit.insertRows()))) {
                return entry;
            }
        }
        return null;
    }

    void put(RouteUnit unit, int hash, String sql, int[] parameterMap) {
        Entry entry = new Entry(hash, unit.tables(), keyedByRows ? unit.insertRows().clone() : null, sql, parameterMap);
        for (int i = 0; i < PROBES; i++) {
            if (slots.compareAndSet((hash + i) & (SLOTS - 1), null, entry)) {
                return;
            }
        }
        slots.set(hash & (SLOTS - 1), entry);
    }
}
