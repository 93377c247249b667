package io.ashlar.route.rule;

import java.util.Arrays;

/**
 * A set of data node indexes of one sharded table (or of one group of binding tables, whose nodes line up
 * position by position), as a bit set: what a route computes for each table before it becomes route units.
 * Mutable and not thread-safe: one per routing call.
 */
public final class NodeSet {

    private final int capacity;

    private final long[] words;

    private NodeSet(int capacity) {
        this.capacity = capacity;
        this.words = new long[(capacity + 63) >>> 6];
    }

    /** An empty set for node indexes {@code 0 .. capacity-1}. */
    public static NodeSet empty(int capacity) {
        return new NodeSet(capacity);
    }

    /** The set of every node {@code 0 .. capacity-1}. */
    public static NodeSet all(int capacity) {
        NodeSet result = new NodeSet(capacity);
        result.addAll();
        return result;
    }

    public int capacity() {
        return capacity;
    }

    public void add(int node) {
        words[node >>> 6] |= 1L << node;
    }

    public void addAll() {
        Arrays.fill(words, -1L);
        int extra = words.length * 64 - capacity;
        if (extra > 0) {
            words[words.length - 1] >>>= extra;
        }
    }

    public void clear() {
        Arrays.fill(words, 0L);
    }

    public boolean contains(int node) {
        return (words[node >>> 6] & 1L << node) != 0;
    }

    /** Adds every node of {@code other} (same capacity). */
    public void or(NodeSet other) {
        for (int i = 0; i < words.length; i++) {
            words[i] |= other.words[i];
        }
    }

    /** Keeps only the nodes also in {@code other} (same capacity). */
    public void and(NodeSet other) {
        for (int i = 0; i < words.length; i++) {
            words[i] &= other.words[i];
        }
    }

    public boolean isEmpty() {
        for (long each : words) {
            if (each != 0) {
                return false;
            }
        }
        return true;
    }

    public boolean isFull() {
        return size() == capacity;
    }

    public int size() {
        int result = 0;
        for (long each : words) {
            result += Long.bitCount(each);
        }
        return result;
    }

    /** The smallest node at or after {@code from}, or -1. */
    public int next(int from) {
        if (from >= capacity) {
            return -1;
        }
        int index = from >>> 6;
        long word = words[index] & -1L << from;
        while (true) {
            if (word != 0) {
                int result = index * 64 + Long.numberOfTrailingZeros(word);
                return result < capacity ? result : -1;
            }
            if (++index == words.length) {
                return -1;
            }
            word = words[index];
        }
    }

    @Override
    public String toString() {
        StringBuilder result = new StringBuilder("{");
        for (int i = next(0); i >= 0; i = next(i + 1)) {
            if (result.length() > 1) {
                result.append(", ");
            }
            result.append(i);
        }
        return result.append('}').toString();
    }
}
