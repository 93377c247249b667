package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.route.config.AlgorithmConfig;
import io.ashlar.route.config.AutoTableRuleConfig;
import io.ashlar.route.config.BindingTableGroupConfig;
import io.ashlar.route.config.BroadcastRuleConfig;
import io.ashlar.route.config.KeyGenerateStrategyConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import io.ashlar.route.config.SingleRuleConfig;
import io.ashlar.route.config.TableRuleConfig;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Turns configuration back into ShardingSphere-shaped YAML text, the form the registry stores: a
 * {@link LogicalDatabaseConfig} becomes a config-*.yaml ({@code databaseName}, {@code dataSources},
 * {@code rules: - !SHARDING ...}), a {@link ServerConfig} a server.yaml in the 5.4+ {@code authority:} form.
 *
 * <p>What it writes, {@link ProxyConfigurationLoader} reads back into equal records. The tree is built from
 * SnakeYAML nodes and serialized, so quoting (a property {@code "4"} that must stay text, a password with a
 * {@code #}) is SnakeYAML's to get right.
 */
public final class ConfigurationSwapper {

    private static final Resolver RESOLVER = new Resolver();

    private static final Pattern CANONICAL_INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");

    private ConfigurationSwapper() {
    }

    /**
     * A logical database as config-*.yaml text.
     *
     * @param database the logical database; its rules must be the route module's rule records
     * @return YAML text
     * @throws IllegalArgumentException for a rule object this class does not know
     */
    public static String toYaml(LogicalDatabaseConfig database) {
        List<NodeTuple> root = new ArrayList<>();
        put(root, "databaseName", text(database.name()));
        List<NodeTuple> dataSources = new ArrayList<>();
        for (DataSourceConfig each : database.dataSources().values()) {
            put(dataSources, each.name(), dataSource(each));
        }
        put(root, "dataSources", mapping(dataSources));
        List<Node> rules = new ArrayList<>();
        for (Object each : database.rules()) {
            rules.add(rule(each));
        }
        put(root, "rules", new SequenceNode(Tag.SEQ, rules, DumperOptions.FlowStyle.BLOCK));
        return serialize(mapping(root));
    }

    /**
     * Server configuration as server.yaml text (users in the 5.4+ {@code authority:} form, with Ashlar's
     * {@code authenticationMethod} for a user that has one; a user without one reads back as the
     * protocol's default, as written).
     *
     * @param server the server configuration
     * @return YAML text
     */
    public static String toYaml(ServerConfig server) {
        List<NodeTuple> root = new ArrayList<>();
        List<NodeTuple> mode = new ArrayList<>();
        put(mode, "type", text(server.mode().type() == ModeConfig.Type.CLUSTER ? "Cluster" : "Standalone"));
        server.mode().repository().ifPresent(repository -> {
            List<NodeTuple> repositoryNode = new ArrayList<>();
            put(repositoryNode, "type", text(repository.type()));
            put(repositoryNode, "props", props(repository.props()));
            put(mode, "repository", mapping(repositoryNode));
        });
        if (server.mode().overwrite()) {
            put(mode, "overwrite", bool(true));
        }
        put(root, "mode", mapping(mode));
        List<Node> users = new ArrayList<>();
        for (ProxyUser each : server.users()) {
            List<NodeTuple> user = new ArrayList<>();
            put(user, "user", text(each.name() + "@" + each.host()));
            put(user, "password", text(each.password()));
            if (!ProxyUser.PROTOCOL_DEFAULT.equals(each.authenticationMethod())) {
                put(user, "authenticationMethod", text(each.authenticationMethod()));
            }
            if (each.sslRequired()) {
                put(user, "sslRequired", bool(true));
            }
            if (each.admin()) {
                put(user, "admin", bool(true));
            }
            users.add(mapping(user));
        }
        List<NodeTuple> authority = new ArrayList<>();
        put(authority, "users", new SequenceNode(Tag.SEQ, users, DumperOptions.FlowStyle.BLOCK));
        if (!ProxyUser.PROTOCOL_DEFAULT.equals(server.defaultAuthenticationMethod())) {
            String type = switch (server.defaultAuthenticationMethod()) {
                case ProxyUser.SCRAM_SHA_256 -> "SCRAM_SHA256";
                case ProxyUser.MD5 -> "MD5";
                default -> "PASSWORD";
            };
            List<NodeTuple> authenticator = new ArrayList<>();
            put(authenticator, "type", text(type));
            List<NodeTuple> authenticators = new ArrayList<>();
            put(authenticators, "default", mapping(authenticator));
            put(authority, "authenticators", mapping(authenticators));
            put(authority, "defaultAuthenticator", text("default"));
        }
        List<NodeTuple> privilege = new ArrayList<>();
        if (server.privilege().allPermitted()) {
            put(privilege, "type", text("ALL_PERMITTED"));
        } else {
            put(privilege, "type", text("DATABASE_PERMITTED"));
            put(privilege, "props", props(Map.of("user-database-mappings", server.privilege().mappings())));
        }
        put(authority, "privilege", mapping(privilege));
        put(root, "authority", mapping(authority));
        ServerProps props = server.props();
        List<NodeTuple> propsNode = new ArrayList<>();
        put(propsNode, "proxy-default-port", number(props.port()));
        put(propsNode, "proxy-bind-address", text(props.bindAddress()));
        put(propsNode, "proxy-frontend-max-connections", number(props.frontendMaxConnections()));
        put(propsNode, "sql-show", bool(props.sqlShow()));
        put(propsNode, "sql-simple", bool(props.sqlSimple()));
        put(propsNode, "proxy-backend-query-fetch-size", number(props.backendQueryFetchSize()));
        put(propsNode, "max-connections-size-per-query", number(props.maxConnectionsSizePerQuery()));
        props.frontendDatabaseProtocolType().ifPresent(type -> put(propsNode, "proxy-frontend-database-protocol-type", text(type)));
        put(propsNode, "proxy-frontend-flush-threshold", number(props.frontendFlushThreshold()));
        put(propsNode, "proxy-frontend-executor-size", number(props.frontendExecutorSize()));
        put(propsNode, "proxy-netty-backlog", number(props.nettyBacklog()));
        put(propsNode, "proxy-statement-memory-limit", number(props.statementMemoryLimit()));
        FrontendTlsConfig tls = props.frontendTls();
        put(propsNode, "proxy-frontend-ssl-enabled", bool(tls.enabled()));
        put(propsNode, "proxy-frontend-ssl-version", text(String.join(",", tls.versions())));
        if (!tls.ciphers().isEmpty()) {
            put(propsNode, "proxy-frontend-ssl-cipher", text(String.join(",", tls.ciphers())));
        }
        tls.certFile().ifPresent(file -> put(propsNode, "proxy-frontend-ssl-cert-file", text(file)));
        tls.keyFile().ifPresent(file -> put(propsNode, "proxy-frontend-ssl-key-file", text(file)));
        if (tls.required()) {
            put(propsNode, "proxy-frontend-ssl-required", bool(true));
        }
        put(propsNode, "proxy-frontend-authentication-timeout-seconds", number(props.authenticationTimeoutSeconds()));
        put(propsNode, "proxy-frontend-auth-delay-milliseconds", number(props.authDelayMilliseconds()));
        put(propsNode, "transaction-log-directory", text(server.transaction().logDirectory().toString()));
        if (props.observability().metricsPort() != 0) {
            put(propsNode, "metrics-port", number(props.observability().metricsPort()));
        }
        if (props.observability().slowQueryThresholdMillis() != 0) {
            put(propsNode, "slow-query-threshold-milliseconds", number(props.observability().slowQueryThresholdMillis()));
        }
        put(root, "props", mapping(propsNode));
        List<NodeTuple> transaction = new ArrayList<>();
        put(transaction, "defaultType", text(server.transaction().twoPhase() ? "XA" : "LOCAL"));
        put(root, "transaction", mapping(transaction));
        return serialize(mapping(root));
    }

    private static Node dataSource(DataSourceConfig source) {
        List<NodeTuple> result = new ArrayList<>();
        put(result, "url", text(source.url()));
        put(result, "username", text(source.username()));
        put(result, "password", text(source.password()));
        put(result, "connectionTimeoutMilliseconds", number(source.connectionTimeoutMilliseconds()));
        put(result, "idleTimeoutMilliseconds", number(source.idleTimeoutMilliseconds()));
        put(result, "maxLifetimeMilliseconds", number(source.maxLifetimeMilliseconds()));
        put(result, "maxPoolSize", number(source.maxPoolSize()));
        put(result, "minPoolSize", number(source.minPoolSize()));
        if (source.healthCheckIntervalMilliseconds() != DataSourceConfig.DEFAULT_HEALTH_CHECK_INTERVAL_MILLISECONDS) {
            put(result, "healthCheckIntervalMilliseconds", number(source.healthCheckIntervalMilliseconds()));
        }
        if (source.healthCheckTimeoutMilliseconds() != DataSourceConfig.DEFAULT_HEALTH_CHECK_TIMEOUT_MILLISECONDS) {
            put(result, "healthCheckTimeoutMilliseconds", number(source.healthCheckTimeoutMilliseconds()));
        }
        if (source.tcpKeepaliveSeconds() != DataSourceConfig.DEFAULT_TCP_KEEPALIVE_SECONDS) {
            put(result, "tcpKeepaliveSeconds", number(source.tcpKeepaliveSeconds()));
        }
        if (!source.driverProperties().isEmpty()) {
            put(result, "props", props(source.driverProperties()));
        }
        return mapping(result);
    }

    private static Node rule(Object rule) {
        return switch (rule) {
            case ShardingRuleConfig sharding -> sharding(sharding);
            case BroadcastRuleConfig broadcast -> {
                List<NodeTuple> result = new ArrayList<>();
                put(result, "tables", texts(broadcast.tables()));
                yield new MappingNode(new Tag(RuleTags.BROADCAST), result, DumperOptions.FlowStyle.BLOCK);
            }
            case SingleRuleConfig single -> {
                List<NodeTuple> result = new ArrayList<>();
                put(result, "tables", texts(single.tables()));
                single.defaultDataSource().ifPresent(each -> put(result, "defaultDataSource", text(each)));
                yield new MappingNode(new Tag(RuleTags.SINGLE), result, DumperOptions.FlowStyle.BLOCK);
            }
            default -> throw new IllegalArgumentException("no YAML form for rule " + rule.getClass().getName());
        };
    }

    private static Node sharding(ShardingRuleConfig rule) {
        List<NodeTuple> result = new ArrayList<>();
        if (!rule.tables().isEmpty()) {
            List<NodeTuple> tables = new ArrayList<>();
            for (TableRuleConfig each : rule.tables().values()) {
                List<NodeTuple> table = new ArrayList<>();
                each.actualDataNodes().ifPresent(nodes -> put(table, "actualDataNodes", text(nodes)));
                each.databaseStrategy().ifPresent(strategy -> put(table, "databaseStrategy", strategy(strategy)));
                each.tableStrategy().ifPresent(strategy -> put(table, "tableStrategy", strategy(strategy)));
                each.keyGenerateStrategy().ifPresent(strategy -> put(table, "keyGenerateStrategy", keyGenerateStrategy(strategy)));
                put(tables, each.logicTable(), mapping(table));
            }
            put(result, "tables", mapping(tables));
        }
        if (!rule.autoTables().isEmpty()) {
            List<NodeTuple> tables = new ArrayList<>();
            for (AutoTableRuleConfig each : rule.autoTables().values()) {
                List<NodeTuple> table = new ArrayList<>();
                each.actualDataSources().ifPresent(sources -> put(table, "actualDataSources", text(sources)));
                each.shardingStrategy().ifPresent(strategy -> put(table, "shardingStrategy", strategy(strategy)));
                each.keyGenerateStrategy().ifPresent(strategy -> put(table, "keyGenerateStrategy", keyGenerateStrategy(strategy)));
                put(tables, each.logicTable(), mapping(table));
            }
            put(result, "autoTables", mapping(tables));
        }
        if (!rule.bindingTables().isEmpty()) {
            List<String> groups = new ArrayList<>();
            for (BindingTableGroupConfig each : rule.bindingTables()) {
                groups.add(each.name().map(name -> name + ":").orElse("") + String.join(", ", each.tables()));
            }
            put(result, "bindingTables", texts(groups));
        }
        if (!rule.broadcastTables().isEmpty()) {
            put(result, "broadcastTables", texts(rule.broadcastTables()));
        }
        rule.defaultDatabaseStrategy().ifPresent(each -> put(result, "defaultDatabaseStrategy", strategy(each)));
        rule.defaultTableStrategy().ifPresent(each -> put(result, "defaultTableStrategy", strategy(each)));
        rule.defaultKeyGenerateStrategy().ifPresent(each -> put(result, "defaultKeyGenerateStrategy", keyGenerateStrategy(each)));
        rule.defaultShardingColumn().ifPresent(each -> put(result, "defaultShardingColumn", text(each)));
        if (!rule.shardingAlgorithms().isEmpty()) {
            put(result, "shardingAlgorithms", algorithms(rule.shardingAlgorithms()));
        }
        if (!rule.keyGenerators().isEmpty()) {
            put(result, "keyGenerators", algorithms(rule.keyGenerators()));
        }
        return new MappingNode(new Tag(RuleTags.SHARDING), result, DumperOptions.FlowStyle.BLOCK);
    }

    private static Node strategy(ShardingStrategyConfig strategy) {
        List<NodeTuple> body = new ArrayList<>();
        String kind = switch (strategy) {
            case ShardingStrategyConfig.Standard standard -> {
                put(body, "shardingColumn", text(standard.shardingColumn()));
                put(body, "shardingAlgorithmName", text(standard.shardingAlgorithmName()));
                yield "standard";
            }
            case ShardingStrategyConfig.Complex complex -> {
                put(body, "shardingColumns", text(String.join(", ", complex.shardingColumns())));
                put(body, "shardingAlgorithmName", text(complex.shardingAlgorithmName()));
                yield "complex";
            }
            case ShardingStrategyConfig.Hint hint -> {
                put(body, "shardingAlgorithmName", text(hint.shardingAlgorithmName()));
                yield "hint";
            }
            case ShardingStrategyConfig.None none -> "none";
        };
        List<NodeTuple> result = new ArrayList<>();
        put(result, kind, body.isEmpty() ? nothing() : mapping(body));
        return mapping(result);
    }

    private static Node keyGenerateStrategy(KeyGenerateStrategyConfig strategy) {
        List<NodeTuple> result = new ArrayList<>();
        put(result, "column", text(strategy.column()));
        put(result, "keyGeneratorName", text(strategy.keyGeneratorName()));
        return mapping(result);
    }

    private static Node algorithms(Map<String, AlgorithmConfig> algorithms) {
        List<NodeTuple> result = new ArrayList<>();
        for (Map.Entry<String, AlgorithmConfig> each : algorithms.entrySet()) {
            List<NodeTuple> algorithm = new ArrayList<>();
            put(algorithm, "type", text(each.getValue().type()));
            if (!each.getValue().props().isEmpty()) {
                put(algorithm, "props", props(each.getValue().props()));
            }
            put(result, each.getKey(), mapping(algorithm));
        }
        return mapping(result);
    }

    private static Node props(Map<String, String> props) {
        List<NodeTuple> result = new ArrayList<>();
        for (Map.Entry<String, String> each : props.entrySet()) {
            put(result, each.getKey(), propertyValue(each.getValue()));
        }
        return mapping(result);
    }

    /**
     * A property value written plain where reading it back gives the same text ({@code 4}, {@code true},
     * {@code 0.5}), quoted otherwise ({@code 'yes'}, which plain would read back as {@code true}).
     */
    private static ScalarNode propertyValue(String value) {
        Tag tag = RESOLVER.resolve(NodeId.scalar, value, true);
        boolean samePlain = Tag.INT.equals(tag) && CANONICAL_INTEGER.matcher(value).matches()
                || Tag.BOOL.equals(tag) && ("true".equals(value) || "false".equals(value))
                || Tag.FLOAT.equals(tag);
        return new ScalarNode(samePlain ? tag : Tag.STR, value, null, null, DumperOptions.ScalarStyle.PLAIN);
    }

    private static void put(List<NodeTuple> mapping, String key, Node value) {
        mapping.add(new NodeTuple(text(key), value));
    }

    private static MappingNode mapping(List<NodeTuple> tuples) {
        return new MappingNode(Tag.MAP, tuples, DumperOptions.FlowStyle.BLOCK);
    }

    private static SequenceNode texts(List<String> values) {
        List<Node> items = new ArrayList<>(values.size());
        for (String each : values) {
            items.add(text(each));
        }
        return new SequenceNode(Tag.SEQ, items, DumperOptions.FlowStyle.BLOCK);
    }

    private static ScalarNode text(String value) {
        return new ScalarNode(Tag.STR, value, null, null, DumperOptions.ScalarStyle.PLAIN);
    }

    private static ScalarNode number(long value) {
        return new ScalarNode(Tag.INT, Long.toString(value), null, null, DumperOptions.ScalarStyle.PLAIN);
    }

    private static ScalarNode bool(boolean value) {
        return new ScalarNode(Tag.BOOL, Boolean.toString(value), null, null, DumperOptions.ScalarStyle.PLAIN);
    }

    private static ScalarNode nothing() {
        return new ScalarNode(Tag.NULL, "", null, null, DumperOptions.ScalarStyle.PLAIN);
    }

    private static String serialize(Node root) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setIndicatorIndent(2);
        options.setIndentWithIndicator(true);
        options.setSplitLines(false);
        options.setExplicitStart(false);
        Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(options), options);
        StringWriter result = new StringWriter();
        yaml.serialize(root, result);
        return result.toString();
    }
}
