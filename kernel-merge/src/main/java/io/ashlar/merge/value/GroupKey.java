package io.ashlar.merge.value;

import java.util.Arrays;

/**
 * The identity of a group (or of a DISTINCT row, or of a distinct aggregate argument): the
 * canonical bytes of its key values, so that values PostgreSQL considers equal ({@code 1.0}
 * and {@code 1.00}, {@code -0} and {@code 0}, {@code 1 mon} and {@code 30 days}) make equal
 * keys. Immutable, hash computed once; made by {@link GroupKeyEncoder}.
 */
public final class GroupKey {

    private final byte[] bytes;
    private final int hash;

    GroupKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof GroupKey key && hash == key.hash && Arrays.equals(bytes, key.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "GroupKey" + Arrays.toString(bytes);
    }
}
