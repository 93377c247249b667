package io.ashlar.bootstrap.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the values of one YAML mapping with typed accessors whose errors name the file, the key path, the value
 * found and the value expected. A key given as {@code key:} with nothing after it counts as absent.
 */
final class MappingReader {

    private final String fileName;

    private final ConfigNode.Mapping node;

    MappingReader(String fileName, ConfigNode.Mapping node) {
        this.fileName = fileName;
        this.node = node;
    }

    /** A reader of {@code node}, which must be a mapping (or nothing, read as an empty mapping). */
    static MappingReader of(String fileName, ConfigNode node) {
        if (node instanceof ConfigNode.Mapping mapping) {
            return new MappingReader(fileName, mapping);
        }
        if (node instanceof ConfigNode.Scalar scalar && scalar.isNull()) {
            return new MappingReader(fileName, new ConfigNode.Mapping(node.path(), node.line(), node.column(), node.localTag(), Map.of()));
        }
        throw ConfigErrors.at(fileName, node, "expected a mapping of keys to values, got " + node.describe());
    }

    String fileName() {
        return fileName;
    }

    ConfigNode.Mapping node() {
        return node;
    }

    /** Path prefix of this mapping's children, for messages about one of them. */
    String path() {
        return node.childPath();
    }

    ConfigurationException error(String message) {
        return ConfigErrors.at(fileName, node.childPath(), node.line(), node.column(), message);
    }

    ConfigurationException error(ConfigNode at, String message) {
        return ConfigErrors.at(fileName, at, message);
    }

    /** Fails on the first key not in {@code known}. */
    MappingReader expectKeys(Collection<String> known) {
        for (ConfigNode.Entry each : node.entries().values()) {
            if (!known.contains(each.key())) {
                throw ConfigErrors.at(fileName, node.childPath(), each.line(), each.column(), ConfigErrors.unknownKey(each.key(), known));
            }
        }
        return this;
    }

    MappingReader expectKeys(String... known) {
        return expectKeys(List.of(known));
    }

    boolean isEmpty() {
        return node.entries().isEmpty();
    }

    Collection<ConfigNode.Entry> entries() {
        return node.entries().values();
    }

    /** Whether the key is present with a value other than nothing. */
    boolean has(String key) {
        return value(key).isPresent();
    }

    /** Whether the key is written at all, even as {@code key:} with nothing after it. */
    boolean contains(String key) {
        return node.entries().containsKey(key);
    }

    Optional<ConfigNode> value(String key) {
        ConfigNode.Entry entry = node.entries().get(key);
        if (entry == null || entry.value() instanceof ConfigNode.Scalar scalar && scalar.isNull() && scalar.localTag().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(entry.value());
    }

    Optional<ConfigNode> raw(String key) {
        ConfigNode.Entry entry = node.entries().get(key);
        return entry == null ? Optional.empty() : Optional.of(entry.value());
    }

    Optional<String> text(String key) {
        Optional<ConfigNode> value = value(key);
        return value.isEmpty() ? Optional.empty() : Optional.of(scalarText(value.get()));
    }

    /** A text value that must be present and not blank. */
    String requiredText(String key) {
        Optional<String> result = text(key);
        if (result.isEmpty() || result.get().isBlank()) {
            throw error("missing '" + key + "'" + (result.isPresent() ? " (it is blank)" : ""));
        }
        return result.get();
    }

    /** Optional text, refused if present but blank. */
    Optional<String> nonBlankText(String key) {
        Optional<String> result = text(key);
        if (result.isPresent() && result.get().isBlank()) {
            throw error(value(key).orElseThrow(), "expected a name, got a blank text");
        }
        return result;
    }

    Optional<MappingReader> mapping(String key) {
        return value(key).map(each -> of(fileName, each));
    }

    /** A list of scalars, also accepting a single scalar as a list of one. */
    List<String> textList(String key) {
        Optional<ConfigNode> value = value(key);
        if (value.isEmpty()) {
            return List.of();
        }
        if (value.get() instanceof ConfigNode.Sequence sequence) {
            List<String> result = new ArrayList<>(sequence.items().size());
            for (ConfigNode each : sequence.items()) {
                result.add(scalarText(each));
            }
            return Collections.unmodifiableList(result);
        }
        if (value.get() instanceof ConfigNode.Scalar) {
            return List.of(scalarText(value.get()));
        }
        throw error(value.get(), "expected a list, got " + value.get().describe());
    }

    List<ConfigNode> list(String key) {
        Optional<ConfigNode> value = value(key);
        if (value.isEmpty()) {
            return List.of();
        }
        if (value.get() instanceof ConfigNode.Sequence sequence) {
            return sequence.items();
        }
        throw error(value.get(), "expected a list, got " + value.get().describe());
    }

    /** {@code props:}: a flat mapping whose scalar values become text (numbers as written, booleans as true/false). */
    Map<String, String> props(String key) {
        Optional<ConfigNode> value = value(key);
        if (value.isEmpty()) {
            return Map.of();
        }
        MappingReader props = of(fileName, value.get());
        Map<String, String> result = new LinkedHashMap<>();
        for (ConfigNode.Entry each : props.entries()) {
            if (each.value() instanceof ConfigNode.Scalar scalar && scalar.isNull()) {
                result.put(each.key(), "");
            } else {
                result.put(each.key(), propertyText(each.value()));
            }
        }
        return Collections.unmodifiableMap(result);
    }

    boolean bool(String key, boolean defaultValue) {
        Optional<ConfigNode> value = value(key);
        return value.isEmpty() ? defaultValue : toBoolean(value.get());
    }

    int integer(String key, int defaultValue, int min, String expected) {
        Optional<ConfigNode> value = value(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        long result = toLong(value.get(), expected);
        if (result < min || result > Integer.MAX_VALUE) {
            throw error(value.get(), "expected " + expected + ", got " + value.get().describe());
        }
        return (int) result;
    }

    long longValue(String key, long defaultValue, long min, String expected) {
        Optional<ConfigNode> value = value(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        long result = toLong(value.get(), expected);
        if (result < min) {
            throw error(value.get(), "expected " + expected + ", got " + value.get().describe());
        }
        return result;
    }

    /** The text of a scalar exactly as written ({@code password: yes} is {@code "yes"}); empty for nothing. */
    String scalarText(ConfigNode value) {
        if (!(value instanceof ConfigNode.Scalar scalar)) {
            throw error(value, "expected a single value, got " + value.describe());
        }
        return scalar.text();
    }

    /**
     * The text of a property value as ShardingSphere's {@code Properties} would hold it: numbers keep the digits
     * written ({@code 4}, not {@code 4.0}), YAML booleans ({@code yes}, {@code on}) become {@code true}/{@code false}.
     */
    String propertyText(ConfigNode value) {
        if (!(value instanceof ConfigNode.Scalar scalar)) {
            throw error(value, "expected a single value, got " + value.describe());
        }
        return switch (scalar.kind()) {
            case NULL -> "";
            case BOOL -> String.valueOf(toBoolean(scalar));
            case INT -> plainInteger(scalar.text());
            default -> scalar.text();
        };
    }

    boolean toBoolean(ConfigNode value) {
        if (value instanceof ConfigNode.Scalar scalar && scalar.kind() != ConfigNode.Kind.NULL) {
            switch (scalar.text().toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on", "y":
                    return true;
                case "false", "no", "off", "n":
                    return false;
                default:
                    break;
            }
        }
        throw error(value, "expected true or false, got " + value.describe());
    }

    long toLong(ConfigNode value, String expected) {
        if (value instanceof ConfigNode.Scalar scalar && scalar.kind() != ConfigNode.Kind.NULL) {
            String text = plainInteger(scalar.text().strip());
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw error(value, "expected " + expected + ", got " + value.describe());
            }
        }
        throw error(value, "expected " + expected + ", got " + value.describe());
    }

    /** {@code +1_000} is 1000: YAML 1.1 integer spellings reduced to plain decimal digits where that is all they are. */
    private static String plainInteger(String text) {
        String result = text.indexOf('_') >= 0 ? text.replace("_", "") : text;
        if (result.startsWith("+")) {
            result = result.substring(1);
        }
        for (int i = 0; i < result.length(); i++) {
            char c = result.charAt(i);
            if (!(c >= '0' && c <= '9' || i == 0 && c == '-')) {
                return text;
            }
        }
        return result.isEmpty() || "-".equals(result) ? text : result;
    }
}
