package io.ashlar.bootstrap.config;

/**
 * A configuration Ashlar cannot run with: unreadable YAML, an unknown or misspelt key, a value of the wrong kind,
 * a reference to something not defined, or a ShardingSphere feature Ashlar does not have.
 *
 * <p>The message is meant for the person editing the file: it names the file, the key path
 * ({@code rules[0].!SHARDING.tables.t_order.databaseStrategy}), what was found and what was expected, and the line
 * where that is known. Startup prints it and stops.
 */
public final class ConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigurationException(String message) {
        super(message);
    }

    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
