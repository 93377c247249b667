package io.ashlar.merge.aggregate;

import io.ashlar.merge.value.ValueKind;
import io.ashlar.merge.value.ValueOrdering;

/**
 * {@code MIN} or {@code MAX}: the winning shard value under the type's ordering, kept byte for
 * byte; NULLs ignored. Values that decode are decoded once each. Over a type whose order the
 * proxy does not know (money, jsonb, ...) it fails as soon as two values must be compared.
 */
public final class ExtremeAccumulator implements Accumulator {

    private final int column;
    private final ValueOrdering ordering;
    private final boolean maximum;
    private final boolean exact;
    private final long[] slots = new long[4];
    private byte[] best;

    ExtremeAccumulator(int column, ValueOrdering ordering, boolean maximum) {
        this.column = column;
        this.ordering = ordering;
        this.maximum = maximum;
        this.exact = ValueKind.hasExactOrdering(ordering.typeOid());
    }

    @Override
    public void reset() {
        best = null;
    }

    @Override
    public void add(byte[][] row) {
        byte[] value = row[column];
        if (value == null) {
            return;
        }
        if (best == null) {
            best = value;
            if (ordering.decodes()) {
                ordering.decode(value, slots, 0);
            }
            return;
        }
        if (!exact) {
            throw new IllegalStateException((maximum ? "MAX" : "MIN") + " over type OID " + ordering.typeOid()
                    + " cannot be merged across shards: the proxy does not know that type's sort order");
        }
        int comparison;
        if (ordering.decodes()) {
            ordering.decode(value, slots, 2);
            comparison = ordering.compareDecoded(slots, 2, slots, 0);
        } else {
            comparison = ordering.compare(value, best);
        }
        if (maximum ? comparison > 0 : comparison < 0) {
            best = value;
            slots[0] = slots[2];
            slots[1] = slots[3];
        }
    }

    @Override
    public byte[] result() {
        return best;
    }
}
