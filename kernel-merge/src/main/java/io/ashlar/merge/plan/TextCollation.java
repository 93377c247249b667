package io.ashlar.merge.plan;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;

/**
 * How text values of one column compare: the proxy must order strings exactly as the shards'
 * collation did, or a k-way merge of their sorted streams comes out unsorted.
 *
 * <p>The default is {@link #C}, PostgreSQL's "C" collation: UTF-8 bytes compared as unsigned
 * (<a href="https://www.postgresql.org/docs/current/collation.html">Collation Support</a>). For
 * another collation the caller supplies one; a deterministic collation must break ties of
 * equal-collating strings by their bytes, as PostgreSQL does, so that equality stays byte
 * equality (GROUP BY and DISTINCT rely on that).
 */
@FunctionalInterface
public interface TextCollation {

    /** Unsigned byte order, PostgreSQL's "C" and "POSIX" collations. */
    TextCollation C = (a, aLength, b, bLength) -> Arrays.compareUnsigned(a, 0, aLength, b, 0, bLength);

    /**
     * Compares the first {@code aLength} bytes of {@code a} with the first {@code bLength} of
     * {@code b} (lengths let {@code char(n)} drop its padding without copying).
     */
    int compare(byte[] a, int aLength, byte[] b, int bLength);

    /**
     * The charset of the values compared (the session's client_encoding, in which the shards send them): a constant
     * compared with them (HAVING's) is written in it. UTF-8 unless the collation says otherwise.
     */
    default java.nio.charset.Charset charset() {
        return java.nio.charset.StandardCharsets.UTF_8;
    }

    /** Adapts a whole-array comparator; copies only when a length is shorter than its array. */
    static TextCollation of(Comparator<byte[]> comparator) {
        Objects.requireNonNull(comparator, "comparator");
        return (a, aLength, b, bLength) -> comparator.compare(
                aLength == a.length ? a : Arrays.copyOf(a, aLength),
                bLength == b.length ? b : Arrays.copyOf(b, bLength));
    }
}
