package io.ashlar.route.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Defensive copies that keep the order of the configuration file (which {@code Map.copyOf} does not). */
final class ConfigCollections {

    private ConfigCollections() {
    }

    static <V> Map<String, V> orderedCopy(Map<String, V> source, String what) {
        Objects.requireNonNull(source, what);
        Map<String, V> result = new LinkedHashMap<>(source.size() * 2);
        for (Map.Entry<String, V> each : source.entrySet()) {
            result.put(Objects.requireNonNull(each.getKey(), what + " key"), Objects.requireNonNull(each.getValue(), what + " value"));
        }
        return Collections.unmodifiableMap(result);
    }

    static <T> List<T> listCopy(List<T> source, String what) {
        return List.copyOf(Objects.requireNonNull(source, what));
    }

    static String requireText(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
        return value;
    }
}
