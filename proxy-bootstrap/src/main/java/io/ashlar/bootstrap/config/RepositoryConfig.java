package io.ashlar.bootstrap.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * {@code mode.repository:} of server.yaml: the persist repository's type ({@code ZooKeeper} for cluster mode;
 * {@code JDBC}, {@code File}, {@code H2} for ShardingSphere's standalone mode) and its properties, as text.
 *
 * <p>ZooKeeper properties Ashlar knows: {@code namespace} (default {@code governance_ds}), {@code server-lists}
 * (required), {@code retryIntervalMilliseconds}, {@code maxRetries}, {@code timeToLiveSeconds},
 * {@code operationTimeoutMilliseconds}, {@code digest}.
 *
 * @param type repository type as written
 * @param props repository properties in file order
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/common-config/builtin-algorithm/metadata-repository/">ShardingSphere persist repositories</a>
 */
public record RepositoryConfig(String type, Map<String, String> props) {

    public RepositoryConfig {
        Objects.requireNonNull(type, "type");
        props = Collections.unmodifiableMap(new LinkedHashMap<>(props));
    }

    /** A property, or {@code defaultValue} when it is not set. */
    public String prop(String key, String defaultValue) {
        String result = props.get(key);
        return result == null || result.isEmpty() ? defaultValue : result;
    }
}
