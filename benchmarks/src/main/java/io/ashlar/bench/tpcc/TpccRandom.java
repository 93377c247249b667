package io.ashlar.bench.tpcc;

import java.util.SplittableRandom;

/**
 * The random values of TPC-C (clause 2.1.5, 2.1.6, 4.3.2), for one thread: uniform integers,
 * NURand, last names from syllables, alphanumeric and numeric strings. Backed by a
 * {@link SplittableRandom}, which costs a few nanoseconds a draw and no synchronisation.
 */
final class TpccRandom {

    private static final char[] ALPHANUMERIC =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
    private static final String[] SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};

    private final SplittableRandom random;
    private final NuRandConstants constants;
    private final TpccScale scale;
    private final char[] buffer = new char[512];

    TpccRandom(SplittableRandom random, NuRandConstants constants, TpccScale scale) {
        this.random = random;
        this.constants = constants;
        this.scale = scale;
    }

    /** Uniform in [min, max], both included. */
    int uniform(int min, int max) {
        return min + random.nextInt(max - min + 1);
    }

    /** NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x (clause 2.1.6). */
    int nonUniform(int a, int c, int min, int max) {
        return (((uniform(0, a) | uniform(min, max)) + c) % (max - min + 1)) + min;
    }

    /** A customer id of a district, NURand(1023, 1, customers). */
    int customerId() {
        return nonUniform(1023, constants.customerId(), 1, scale.customers());
    }

    /** An item id, NURand(8191, 1, items). */
    int itemId() {
        return nonUniform(8191, constants.itemId(), 1, scale.items());
    }

    /** A last name for a lookup, from NURand(255, 0, lastNames - 1). */
    String randomLastName() {
        return lastName(nonUniform(255, constants.lastName(), 0, scale.lastNames() - 1));
    }

    /** The last name numbered {@code number} (0 .. 999): three syllables, one per decimal digit (clause 4.3.2.3). */
    static String lastName(int number) {
        return SYLLABLES[number / 100] + SYLLABLES[number / 10 % 10] + SYLLABLES[number % 10];
    }

    /** A random alphanumeric string a-string[min .. max] (clause 4.3.2.2). */
    String alphanumeric(int min, int max) {
        int length = uniform(min, max);
        for (int i = 0; i < length; i++) {
            buffer[i] = ALPHANUMERIC[random.nextInt(ALPHANUMERIC.length)];
        }
        return new String(buffer, 0, length);
    }

    /** A random numeric string n-string[min .. max]. */
    String numeric(int min, int max) {
        int length = uniform(min, max);
        for (int i = 0; i < length; i++) {
            buffer[i] = (char) ('0' + random.nextInt(10));
        }
        return new String(buffer, 0, length);
    }

    /** I_DATA and S_DATA: a-string[26 .. 50], 10% of them with "ORIGINAL" at a random place (clause 4.3.3.1). */
    String data() {
        int length = uniform(26, 50);
        for (int i = 0; i < length; i++) {
            buffer[i] = ALPHANUMERIC[random.nextInt(ALPHANUMERIC.length)];
        }
        if (uniform(1, 100) <= 10) {
            "ORIGINAL".getChars(0, 8, buffer, uniform(0, length - 8));
        }
        return new String(buffer, 0, length);
    }

    /** A state: two random upper-case letters. */
    String state() {
        buffer[0] = (char) ('A' + random.nextInt(26));
        buffer[1] = (char) ('A' + random.nextInt(26));
        return new String(buffer, 0, 2);
    }

    /** A zip code: n-string[4] followed by "11111" (clause 4.3.2.7). */
    String zip() {
        for (int i = 0; i < 4; i++) {
            buffer[i] = (char) ('0' + random.nextInt(10));
        }
        "11111".getChars(0, 5, buffer, 4);
        return new String(buffer, 0, 9);
    }
}
