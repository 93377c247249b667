package io.ashlar.merge.step;

import io.ashlar.merge.RowCursor;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.ValueKind;
import io.ashlar.merge.value.ValueOrdering;

import java.util.List;

/**
 * Sort keys bound to the column types of a stream: compares rows as PostgreSQL's sort does,
 * NULL placement and DESC included. Keys whose type decodes are read once per row into two
 * long slots per key ({@link #decode}); the others compare their bytes in place.
 */
final class SortKeyLayout {

    private final int size;
    private final int[] columns;
    private final boolean[] descending;
    private final boolean[] nullsFirst;
    private final ValueOrdering[] orderings;
    private final boolean[] decodes;
    private final boolean anyDecodes;

    private SortKeyLayout(List<SortKey> keys, RowCursor input, ColumnCollations collations) {
        size = keys.size();
        columns = new int[size];
        descending = new boolean[size];
        nullsFirst = new boolean[size];
        orderings = new ValueOrdering[size];
        decodes = new boolean[size];
        boolean any = false;
        for (int i = 0; i < size; i++) {
            SortKey key = keys.get(i);
            columns[i] = key.column();
            descending[i] = key.descending();
            nullsFirst[i] = key.nullsFirst();
            orderings[i] = collations.ordering(key.column(), input.typeOid(key.column()));
            decodes[i] = orderings[i].decodes();
            any |= decodes[i];
        }
        anyDecodes = any;
    }

    /** Binds keys used only for equality (grouping): any type will do. */
    static SortKeyLayout bind(List<SortKey> keys, RowCursor input, ColumnCollations collations) {
        return new SortKeyLayout(keys, input, collations);
    }

    /**
     * Binds keys the proxy sorts by; refuses types whose order it does not know
     * ({@link ValueKind#hasExactOrdering(int)}) rather than return rows silently out of order.
     */
    static SortKeyLayout bindForSorting(List<SortKey> keys, RowCursor input, ColumnCollations collations) {
        for (SortKey each : keys) {
            int typeOid = input.typeOid(each.column());
            if (!ValueKind.hasExactOrdering(typeOid)) {
                throw new IllegalArgumentException("ORDER BY over column #" + each.column() + " of type OID " + typeOid
                        + " cannot be merged across shards: the proxy does not know that type's sort order");
            }
        }
        return new SortKeyLayout(keys, input, collations);
    }

    int size() {
        return size;
    }

    /** Slots for one row's decoded keys. */
    long[] newSlots() {
        return new long[size * 2];
    }

    /** Reads the decoding keys of a row into its slots. */
    void decode(byte[][] row, long[] slots) {
        if (!anyDecodes) {
            return;
        }
        for (int i = 0; i < size; i++) {
            byte[] value = row[columns[i]];
            if (decodes[i] && value != null) {
                orderings[i].decode(value, slots, i * 2);
            }
        }
    }

    /** Compares two decoded rows in output order: negative when {@code a} comes first. */
    int compare(byte[][] a, long[] aSlots, byte[][] b, long[] bSlots) {
        for (int i = 0; i < size; i++) {
            int column = columns[i];
            byte[] aValue = a[column];
            byte[] bValue = b[column];
            if (aValue == null || bValue == null) {
                if (aValue == bValue) {
                    continue;
                }
                return (aValue == null) == nullsFirst[i] ? -1 : 1;
            }
            int result = decodes[i]
                    ? orderings[i].compareDecoded(aSlots, i * 2, bSlots, i * 2)
                    : orderings[i].compare(aValue, bValue);
            if (result != 0) {
                return descending[i] ? -result : result;
            }
        }
        return 0;
    }

    /** Whether two rows have equal keys (NULL equal to NULL), without decoding byte-equal values. */
    boolean sameKeys(byte[][] a, byte[][] b) {
        for (int i = 0; i < size; i++) {
            int column = columns[i];
            byte[] aValue = a[column];
            byte[] bValue = b[column];
            if (aValue == bValue) {
                continue;
            }
            if (aValue == null || bValue == null || !orderings[i].equal(aValue, bValue)) {
                return false;
            }
        }
        return true;
    }

    /** The key columns' orderings, for building group keys. */
    ValueOrdering[] orderings() {
        return orderings.clone();
    }

    int[] columns() {
        return columns.clone();
    }
}
