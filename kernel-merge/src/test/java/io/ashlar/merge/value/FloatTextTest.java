package io.ashlar.merge.value;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Expected texts are what PostgreSQL 12+ prints with the default extra_float_digits = 1 (shortest
 * round-trip, Ryu; fixed notation for decimal exponents -4..14 for float8 and -4..5 for float4,
 * else {@code d.ddde+XX}).
 */
class FloatTextTest {

    @Test
    void formatsDoublesAsFloat8out() {
        assertEquals("1e+20", FloatText.format(1e20));
        assertEquals("0.1", FloatText.format(0.1));
        assertEquals("3", FloatText.format(3.0));
        assertEquals("-0", FloatText.format(-0.0));
        assertEquals("0", FloatText.format(0.0));
        assertEquals("NaN", FloatText.format(Double.NaN));
        assertEquals("Infinity", FloatText.format(Double.POSITIVE_INFINITY));
        assertEquals("-Infinity", FloatText.format(Double.NEGATIVE_INFINITY));
        assertEquals("0.3333333333333333", FloatText.format(1 / 3.0));
        assertEquals("100000000000000", FloatText.format(1e14));
        assertEquals("1e+15", FloatText.format(1e15));
        assertEquals("1.2345678901234568e+17", FloatText.format(123456789012345680.0));
        assertEquals("0.0001", FloatText.format(0.0001));
        assertEquals("1e-05", FloatText.format(0.00001));
        assertEquals("-2.5e-07", FloatText.format(-2.5e-7));
        assertEquals("1.7976931348623157e+308", FloatText.format(Double.MAX_VALUE));
        assertEquals("1e+100", FloatText.format(1e100));
        assertEquals("123456.789", FloatText.format(123456.789));
        assertEquals("0.30000000000000004", FloatText.format(0.1 + 0.2));
    }

    @Test
    void takesTheShortestDigitsWhereJavaPrintsTwo() {
        // Double.toString gives 4.9E-324; Ryu (and PostgreSQL) print the one-digit 5e-324
        assertEquals("5e-324", FloatText.format(Double.MIN_VALUE));
        assertEquals("1e-45", FloatText.format(Float.MIN_VALUE));
    }

    @Test
    void formatsRealsAsFloat4out() {
        assertEquals("1e+06", FloatText.format(1e6f));
        assertEquals("100000", FloatText.format(100000f));
        assertEquals("1.234567e+06", FloatText.format(1234567f));
        assertEquals("0.1", FloatText.format(0.1f));
        assertEquals("3.4028235e+38", FloatText.format(Float.MAX_VALUE));
        assertEquals("-0", FloatText.format(-0.0f));
        assertEquals("1e-05", FloatText.format(0.00001f));
    }

    @Test
    void formattedDoublesReadBackExactly() {
        Random random = new Random(11);
        for (int i = 0; i < 20_000; i++) {
            double value = Double.longBitsToDouble(random.nextLong());
            if (Double.isNaN(value)) {
                continue;
            }
            String text = FloatText.format(value);
            assertEquals(value, FloatText.parse(text.getBytes(StandardCharsets.US_ASCII)), text);
            assertTrue(!text.contains("E"), text);
        }
    }

    @Test
    void fastParseMatchesDoubleParseDouble() {
        Random random = new Random(3);
        for (int i = 0; i < 20_000; i++) {
            String text = (random.nextBoolean() ? "-" : "") + random.nextInt(1_000_000) + "." + random.nextInt(1_000_000);
            assertEquals(Double.parseDouble(text), FloatText.parse(text.getBytes(StandardCharsets.US_ASCII)), text);
        }
        assertEquals(1.5e20, FloatText.parse("1.5e+20".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(FloatText.parse("-0".getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void sortableBitsOrderAsPostgresql() {
        double[] ascending = {Double.NEGATIVE_INFINITY, -1e300, -1, -Double.MIN_VALUE, 0, Double.MIN_VALUE, 1, 1e300,
            Double.POSITIVE_INFINITY, Double.NaN};
        for (int i = 1; i < ascending.length; i++) {
            assertTrue(FloatText.sortableBits(ascending[i - 1]) < FloatText.sortableBits(ascending[i]), "at " + i);
        }
        assertEquals(FloatText.sortableBits(0.0), FloatText.sortableBits(-0.0));
        assertEquals(FloatText.sortableBits(Double.NaN), FloatText.sortableBits(Double.longBitsToDouble(0x7ff0000000000123L)));
    }

    /** The fast paths (double, and single precision for real) give the JDK's correctly rounded value, bit for bit. */
    @Test
    void floatFastPathAgreesWithTheJdkParser() {
        Random random = new Random(1);
        for (int i = 0; i < 200_000; i++) {
            double d = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> random.nextInt(2_000_000) / Math.pow(10, random.nextInt(12));
                default -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(60) - 30);
            };
            if (Double.isFinite(d)) {
                String text = i % 2 == 0 ? Double.toString(d)
                        : Double.toString(d).replace("E", "e+").replace("+-", "-");
                byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
                assertEquals(Double.doubleToRawLongBits(Double.parseDouble(text)),
                        Double.doubleToRawLongBits(FloatText.parseDouble(bytes, 0, bytes.length)), text);
                float f = (float) d;
                String floatText = Float.toString(f);
                byte[] floatBytes = floatText.getBytes(StandardCharsets.US_ASCII);
                assertEquals(Float.floatToRawIntBits(Float.parseFloat(floatText)),
                        Float.floatToRawIntBits(FloatText.parseFloat(floatBytes, 0, floatBytes.length)), floatText);
            }
        }
    }

    @Test
    void textNoOutputFunctionPrintsFailsAsPostgresqlWordsIt() {
        for (String text : new String[] {"1.2.3", "inf", "", "0x10"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> FloatText.parse(text.getBytes(StandardCharsets.US_ASCII)), text);
            assertEquals("invalid text for type double precision: \"" + text + "\"", e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> FloatText.parseFloat("Inf".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(Double.NEGATIVE_INFINITY, FloatText.parse("-Infinity".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(Double.isNaN(FloatText.parse("NaN".getBytes(StandardCharsets.US_ASCII))));
    }
}
