package io.ashlar.sharding;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The {@code props} of one algorithm or key generator entry, read once when the rule is compiled,
 * with errors that name the algorithm, the property and what was expected, e.g.
 * {@code MOD sharding algorithm: property 'sharding-count' is 'four'; expected a positive integer}.
 *
 * <p>Values are trimmed; a {@code null} value counts as missing. Unknown properties are ignored,
 * as ShardingSphere ignores them.
 */
public final class AlgorithmProperties {

    private final String owner;

    private final Map<String, String> props;

    private AlgorithmProperties(String owner, Map<String, String> props) {
        this.owner = owner;
        this.props = props;
    }

    /**
     * @param owner how errors name the algorithm, e.g. {@code MOD sharding algorithm}
     * @param props the raw properties (values may be {@code null})
     */
    public static AlgorithmProperties of(String owner, Map<String, String> props) {
        return new AlgorithmProperties(owner, props);
    }

    /** How errors name the algorithm. */
    public String owner() {
        return owner;
    }

    /** The value, trimmed, if present and not blank. */
    public Optional<String> find(String key) {
        String value = props.get(key);
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(value.trim());
    }

    /** A required non-blank value. */
    public String require(String key, String expected) {
        return find(key).orElseThrow(() -> missing(key, expected));
    }

    /** A required integer within {@code [min, max]}. */
    public int requireInt(String key, int min, int max, String expected) {
        return toInt(key, require(key, expected), min, max, expected);
    }

    /** An optional integer within {@code [min, max]}. */
    public int intOrDefault(String key, int defaultValue, int min, int max, String expected) {
        Optional<String> value = find(key);
        return value.isEmpty() ? defaultValue : toInt(key, value.get(), min, max, expected);
    }

    /** A required long. */
    public long requireLong(String key, String expected) {
        String value = require(key, expected);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw invalid(key, value, expected);
        }
    }

    /** An optional {@code true}/{@code false} (any case). */
    public boolean booleanOrDefault(String key, boolean defaultValue) {
        Optional<String> value = find(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        return switch (value.get().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(key, value.get(), "true or false");
        };
    }

    /** All properties as {@link Properties}, for {@link ShardingAlgorithm#init}. */
    public Properties toProperties() {
        Properties result = new Properties();
        props.forEach((key, value) -> {
            if (key != null && value != null) {
                result.setProperty(key, value);
            }
        });
        return result;
    }

    /** {@code <owner>: property '<key>' is missing; expected <expected>}. */
    public ShardingAlgorithmException missing(String key, String expected) {
        return new ShardingAlgorithmException(owner + ": property '" + key + "' is missing; expected " + expected);
    }

    /** {@code <owner>: property '<key>' is '<value>'; expected <expected>}. */
    public ShardingAlgorithmException invalid(String key, String value, String expected) {
        return new ShardingAlgorithmException(owner + ": property '" + key + "' is '" + value + "'; expected " + expected);
    }

    private int toInt(String key, String value, int min, int max, String expected) {
        try {
            int result = Integer.parseInt(value);
            if (result >= min && result <= max) {
                return result;
            }
        } catch (NumberFormatException e) {
            // reported below with the property name
        }
        throw invalid(key, value, expected);
    }
}
