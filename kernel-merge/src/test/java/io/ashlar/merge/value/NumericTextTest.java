package io.ashlar.merge.value;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NumericTextTest {

    private static int compare(String a, String b) {
        return Integer.signum(NumericText.compare(bytes(a), bytes(b)));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void comparesByValueNotByText() {
        assertEquals(0, compare("1.0", "1.00"));
        assertEquals(0, compare("1", "1.000"));
        assertEquals(0, compare("0", "0.00"));
        assertEquals(0, compare("-0.0", "0"));
        assertEquals(-1, compare("9", "10"));
        assertEquals(1, compare("10.5", "9.99"));
        assertEquals(-1, compare("-10", "-9"));
        assertEquals(1, compare("-0.001", "-0.01"));
        assertEquals(-1, compare("0.5", "0.50001"));
        assertEquals(1, compare("0.50001", "0.5"));
        assertEquals(-1, compare("-1", "0"));
        assertEquals(1, compare("0.1", "-5"));
        assertEquals(-1, compare("123456789012345678901234567890.1", "123456789012345678901234567890.2"));
    }

    @Test
    void nanIsAboveEverythingAndInfinitiesBracketTheNumbers() {
        assertEquals(1, compare("NaN", "Infinity"));
        assertEquals(0, compare("NaN", "NaN"));
        assertEquals(1, compare("Infinity", "99999999999999999999"));
        assertEquals(-1, compare("-Infinity", "-99999999999999999999"));
        assertEquals(0, compare("Infinity", "Infinity"));
        assertEquals(-1, compare("-Infinity", "Infinity"));
    }

    @Test
    void ordersLikeBigDecimalOnRandomValues() {
        Random random = new Random(7);
        List<java.math.BigDecimal> values = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            long unscaled = random.nextLong() % 100_000_000L;
            values.add(java.math.BigDecimal.valueOf(unscaled, random.nextInt(8)));
        }
        for (int i = 0; i < values.size(); i++) {
            for (int j = 0; j < 20; j++) {
                java.math.BigDecimal a = values.get(i);
                java.math.BigDecimal b = values.get(random.nextInt(values.size()));
                assertEquals(Integer.signum(a.compareTo(b)), compare(a.toPlainString(), b.toPlainString()), a + " vs " + b);
            }
        }
        List<String> texts = new ArrayList<>();
        values.forEach(each -> texts.add(each.toPlainString()));
        Collections.shuffle(texts, random);
        texts.sort((a, b) -> NumericText.compare(bytes(a), bytes(b)));
        for (int i = 1; i < texts.size(); i++) {
            assertTrue(new java.math.BigDecimal(texts.get(i - 1)).compareTo(new java.math.BigDecimal(texts.get(i))) <= 0);
        }
    }

    @Test
    void equalValuesHaveEqualCanonicalForms() {
        assertEquals(canonical("1.5"), canonical("1.500"));
        assertEquals(canonical("2"), canonical("2.0"));
        assertEquals(canonical("0"), canonical("0.000"));
        assertEquals(canonical("0"), canonical("-0.0"));
        assertEquals("NaN", canonical("NaN"));
        assertEquals("100", canonical("100"));
        assertNotEquals(canonical("10"), canonical("1.0"));
    }

    private static String canonical(String text) {
        byte[] value = bytes(text);
        int start = NumericText.canonicalStart(value);
        return new String(value, start, NumericText.canonicalEnd(value) - start, StandardCharsets.US_ASCII);
    }
}
