package io.ashlar.sharding.keygen;

import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code UUID}: a random (version 4) UUID as 32 lower-case hex digits without dashes, the text
 * ShardingSphere's UUID generator returns (PostgreSQL's {@code uuid} type accepts it). Random bits
 * come from {@link ThreadLocalRandom}, as in ShardingSphere, so no lock is shared between
 * threads.
 */
public final class UuidKeyGenerator implements KeyGenerator {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    @Override
    public String type() {
        return "UUID";
    }

    @Override
    public String generateKey() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = random.nextLong() & 0xFFFF_FFFF_FFFF_0FFFL | 0x0000_0000_0000_4000L;
        long low = random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL | 0x8000_0000_0000_0000L;
        char[] result = new char[32];
        for (int i = 0; i < 16; i++) {
            result[i] = HEX[(int) (high >>> (60 - 4 * i)) & 0xF];
            result[16 + i] = HEX[(int) (low >>> (60 - 4 * i)) & 0xF];
        }
        return new String(result);
    }
}
