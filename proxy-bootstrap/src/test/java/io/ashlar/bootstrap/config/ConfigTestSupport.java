package io.ashlar.bootstrap.config;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;

/** Finds test configuration directories under src/test/resources/config. */
final class ConfigTestSupport {

    private ConfigTestSupport() {
    }

    static Path resourceDir(String name) {
        try {
            return Path.of(Objects.requireNonNull(ConfigTestSupport.class.getResource("/config/" + name), name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
