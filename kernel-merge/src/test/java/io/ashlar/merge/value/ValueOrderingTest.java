package io.ashlar.merge.value;

import io.ashlar.merge.plan.TextCollation;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ValueOrderingTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static int compare(int typeOid, String a, String b) {
        return Integer.signum(ValueOrdering.of(typeOid).compare(bytes(a), bytes(b)));
    }

    @Test
    void integersCompareAsNumbersNotText() {
        assertEquals(-1, compare(TypeOids.INT4, "9", "10"));
        assertEquals(-1, compare(TypeOids.INT8, "-9223372036854775808", "9223372036854775807"));
        assertEquals(1, compare(TypeOids.INT2, "-1", "-2"));
        assertEquals(1, compare(TypeOids.OID, "4294967295", "2"));
    }

    @Test
    void floatsPutNanAboveInfinityAndEqualSignedZeros() {
        assertEquals(1, compare(TypeOids.FLOAT8, "NaN", "Infinity"));
        assertEquals(0, compare(TypeOids.FLOAT8, "NaN", "NaN"));
        assertEquals(0, compare(TypeOids.FLOAT8, "-0", "0"));
        assertEquals(-1, compare(TypeOids.FLOAT8, "-Infinity", "-1e+308"));
        assertEquals(-1, compare(TypeOids.FLOAT4, "1e-45", "0.1"));
        assertEquals(-1, compare(TypeOids.FLOAT8, "9.5", "10"));
    }

    @Test
    void textUsesTheCollationAndCharacterIgnoresPadding() {
        assertEquals(-1, compare(TypeOids.TEXT, "B", "a"));
        assertEquals(-1, compare(TypeOids.TEXT, "abc", "abcd"));
        assertEquals(-1, compare(TypeOids.TEXT, "z", "é"));
        TextCollation caseInsensitiveThenBytes = TextCollation.of(
                Comparator.<byte[], String>comparing(value -> new String(value, StandardCharsets.UTF_8).toLowerCase())
                        .thenComparing((a, b) -> java.util.Arrays.compareUnsigned(a, b)));
        assertEquals(-1, Integer.signum(ValueOrdering.of(TypeOids.TEXT, caseInsensitiveThenBytes).compare(bytes("a"), bytes("B"))));
        assertEquals(0, compare(TypeOids.BPCHAR, "ab   ", "ab"));
        assertEquals(-1, compare(TypeOids.BPCHAR, "ab ", "ab!"));
        assertTrue(ValueOrdering.of(TypeOids.BPCHAR).equal(bytes("x  "), bytes("x")));
    }

    @Test
    void otherTypesByBytes() {
        assertEquals(-1, compare(TypeOids.BOOL, "f", "t"));
        assertEquals(-1, compare(TypeOids.UUID, "0a000000-0000-0000-0000-000000000000", "a0000000-0000-0000-0000-000000000000"));
        assertEquals(-1, compare(TypeOids.BYTEA, "\\x00ff", "\\x01"));
        assertEquals(-1, compare(TypeOids.BYTEA, "\\x01", "\\x0100"));
        assertTrue(ValueKind.hasExactOrdering(TypeOids.UUID));
        assertFalse(ValueKind.hasExactOrdering(TypeOids.JSONB));
        assertFalse(ValueKind.hasExactOrdering(TypeOids.MONEY));
    }

    @Test
    void groupKeysAreEqualForEqualValues() {
        GroupKeyEncoder encoder = new GroupKeyEncoder(new int[] {0, 1, 2},
                new ValueOrdering[] {ValueOrdering.of(TypeOids.NUMERIC), ValueOrdering.of(TypeOids.FLOAT8), ValueOrdering.of(TypeOids.INTERVAL)});
        GroupKey a = encoder.encode(new byte[][] {bytes("1.0"), bytes("-0"), bytes("1 mon")});
        GroupKey b = encoder.encode(new byte[][] {bytes("1.00"), bytes("0"), bytes("30 days")});
        GroupKey c = encoder.encode(new byte[][] {bytes("1.01"), bytes("0"), bytes("30 days")});
        GroupKey nulls = encoder.encode(new byte[][] {null, null, null});
        GroupKey otherNulls = encoder.encode(new byte[][] {null, null, null});
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, c);
        assertEquals(nulls, otherNulls);
        assertNotEquals(nulls, a);
        GroupKeyEncoder text = new GroupKeyEncoder(new int[] {0, 1},
                new ValueOrdering[] {ValueOrdering.of(TypeOids.TEXT), ValueOrdering.of(TypeOids.TEXT)});
        // length prefixes keep ("ab", "c") apart from ("a", "bc")
        assertNotEquals(text.encode(new byte[][] {bytes("ab"), bytes("c")}), text.encode(new byte[][] {bytes("a"), bytes("bc")}));
    }
}
