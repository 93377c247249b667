package io.ashlar.route.rule;

/**
 * A rule configuration that cannot be compiled into a {@link ShardingRules} snapshot: an unknown algorithm type, an
 * inline expression outside the supported syntax, a data source that is not defined, a strategy on columns its
 * algorithm cannot take, binding tables that are not sharded alike. The message names the table, the strategy and
 * the problem, so that the proxy can refuse to start (or refuse a ZooKeeper change) with it unchanged.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
public final class RuleCompilationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RuleCompilationException(String message) {
        super(message);
    }

    public RuleCompilationException(String message, Throwable cause) {
        super(message, cause);
    }
}
