package io.ashlar.bench.tpcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void smallValuesAreExact() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (int i = 1; i <= 50; i++) {
            histogram.record(i);
        }
        assertEquals(50, histogram.count());
        assertEquals(25, histogram.percentile(0.50));
        assertEquals(50, histogram.percentile(1.0));
        assertEquals(1, histogram.percentile(0.0));
    }

    @Test
    void largeValuesAreWithinTheBucketPrecision() {
        for (long value : new long[] {64, 65, 127, 128, 1_000, 4_711, 123_456, 9_999_999, 86_400_000_000L}) {
            LatencyHistogram histogram = new LatencyHistogram();
            histogram.record(value);
            long reported = histogram.percentile(0.99);
            assertTrue(reported >= value && reported <= value + value / 60, value + " reported as " + reported);
        }
    }

    @Test
    void indexesAreMonotonicAndBucketsAreContiguous() {
        int previous = -1;
        for (long value = 0; value < 1 << 20; value += 7) {
            int index = LatencyHistogram.index(value);
            assertTrue(index >= previous);
            assertTrue(LatencyHistogram.highestValue(index) >= value);
            previous = index;
        }
        for (int index = 1; index < 2_000; index++) {
            assertEquals(index, LatencyHistogram.index(LatencyHistogram.highestValue(index - 1) + 1));
        }
    }

    @Test
    void percentilesOfAddedHistograms() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        for (int i = 0; i < 99; i++) {
            a.record(10);
        }
        b.record(1_000_000);
        a.add(b);
        assertEquals(100, a.count());
        assertEquals(10, a.percentile(0.99));
        assertTrue(a.percentile(0.999) >= 1_000_000);
        assertEquals(0, new LatencyHistogram().percentile(0.5));
    }
}
