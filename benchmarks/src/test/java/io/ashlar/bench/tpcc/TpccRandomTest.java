package io.ashlar.bench.tpcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TpccRandomTest {

    @Test
    void lastNamesAreThreeSyllables() {
        assertEquals("BARBARBAR", TpccRandom.lastName(0));
        assertEquals("OUGHTABLEPRI", TpccRandom.lastName(123));
        assertEquals("EINGEINGEING", TpccRandom.lastName(999));
        assertEquals("PRESCALLYESE", TpccRandom.lastName(475));
    }

    @Test
    void drawsStayInTheScaledRanges() {
        for (int scaleDown : new int[] {1, 10, 50, 300}) {
            TpccScale scale = TpccScale.of(3, scaleDown);
            TpccRandom random = new TpccRandom(new SplittableRandom(42), NuRandConstants.forLoad(new SplittableRandom(7)), scale);
            Set<String> loadedNames = new HashSet<>();
            for (int i = 0; i < scale.lastNames(); i++) {
                loadedNames.add(TpccRandom.lastName(i));
            }
            for (int i = 0; i < 20_000; i++) {
                int customer = random.customerId();
                assertTrue(customer >= 1 && customer <= scale.customers(), "customer " + customer);
                int item = random.itemId();
                assertTrue(item >= 1 && item <= scale.items(), "item " + item);
                assertTrue(loadedNames.contains(random.randomLastName()), "every name asked for was loaded");
                int uniform = random.uniform(5, 15);
                assertTrue(uniform >= 5 && uniform <= 15);
            }
        }
    }

    @Test
    void stringsHaveTheirLengthsAndAlphabets() {
        TpccRandom random = new TpccRandom(new SplittableRandom(1), new NuRandConstants(0, 0, 0), TpccScale.of(1, 1));
        int original = 0;
        for (int i = 0; i < 10_000; i++) {
            String a = random.alphanumeric(8, 16);
            assertTrue(a.length() >= 8 && a.length() <= 16 && a.chars().allMatch(Character::isLetterOrDigit), a);
            String n = random.numeric(16, 16);
            assertTrue(n.length() == 16 && n.chars().allMatch(Character::isDigit), n);
            String zip = random.zip();
            assertTrue(zip.length() == 9 && zip.endsWith("11111"), zip);
            String data = random.data();
            assertTrue(data.length() >= 26 && data.length() <= 50, data);
            if (data.contains("ORIGINAL")) {
                original++;
            }
        }
        assertTrue(original > 800 && original < 1_200, "about 10% ORIGINAL, got " + original);
    }

    @Test
    void runConstantForLastNamesKeepsItsDistanceToTheLoad() {
        SplittableRandom random = new SplittableRandom(3);
        for (int load = 0; load < 256; load++) {
            int delta = Math.abs(NuRandConstants.forRun(random, load).lastName() - load);
            assertTrue(delta >= 65 && delta <= 119 && delta != 96 && delta != 112, "delta " + delta);
        }
    }

    @Test
    void scaleDividesItemsCustomersAndOrders() {
        TpccScale full = TpccScale.of(2, 1);
        assertEquals(100_000, full.items());
        assertEquals(3_000, full.customers());
        assertEquals(900, full.newOrders());
        assertEquals(2_101, full.firstNewOrder());
        assertEquals(1_000, full.lastNames());
        TpccScale small = TpccScale.of(2, 50);
        assertEquals(2_000, small.items());
        assertEquals(60, small.customers());
        assertEquals(18, small.newOrders());
        assertEquals(60, small.lastNames());
        assertThrows(IllegalArgumentException.class, () -> TpccScale.of(1, 0));
        assertThrows(IllegalArgumentException.class, () -> TpccScale.of(0, 1));
    }

    @Test
    void mixFollowsBenchmarkSqlWeights() {
        int[] counts = new int[TransactionType.values().length];
        for (int percent = 1; percent <= 100; percent++) {
            counts[TransactionType.forDraw(percent).ordinal()]++;
        }
        assertEquals(45, counts[TransactionType.NEW_ORDER.ordinal()]);
        assertEquals(43, counts[TransactionType.PAYMENT.ordinal()]);
        assertEquals(4, counts[TransactionType.ORDER_STATUS.ordinal()]);
        assertEquals(4, counts[TransactionType.DELIVERY.ordinal()]);
        assertEquals(4, counts[TransactionType.STOCK_LEVEL.ordinal()]);
    }
}
