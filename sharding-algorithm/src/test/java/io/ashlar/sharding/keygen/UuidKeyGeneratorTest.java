package io.ashlar.sharding.keygen;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UuidKeyGeneratorTest {

    @Test
    void thirtyTwoLowerCaseHexDigitsOfAVersion4Uuid() {
        KeyGenerator generator = KeyGenerators.create("UUID", Map.of());
        assertEquals("UUID", generator.type());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String key = (String) generator.generateKey();
            assertTrue(key.matches("[0-9a-f]{32}"), key);
            UUID uuid = UUID.fromString(key.replaceFirst("(.{8})(.{4})(.{4})(.{4})(.{12})", "$1-$2-$3-$4-$5"));
            assertEquals(4, uuid.version(), key);
            assertEquals(2, uuid.variant(), key);
            assertTrue(seen.add(key), "unique");
        }
    }
}
