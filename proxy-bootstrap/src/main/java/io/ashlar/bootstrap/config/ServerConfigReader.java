package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.ProxyUser;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads server.yaml (5.1-5.4) or global.yaml (5.5) into a {@link ServerConfig}: {@code mode}, users from the
 * {@code !AUTHORITY} rule or the {@code authority:} key, and {@code props}. The other global rules of
 * ShardingSphere ({@code transaction}, {@code sqlParser}, {@code sqlFederation}, ...) are accepted and ignored;
 * anything else is an error.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/">ShardingSphere-Proxy YAML configuration</a>
 */
final class ServerConfigReader {

    private static final Logger LOG = LoggerFactory.getLogger(ServerConfigReader.class);

    private static final List<String> IGNORED_GLOBAL_KEYS = List.of("transaction", "sqlParser", "sqlFederation", "sqlTranslator",
            "traffic", "logging", "globalClock", "cdc", "labels");

    private static final List<String> KEYS;

    static {
        List<String> keys = new ArrayList<>(List.of("mode", "authority", "rules", "props"));
        keys.addAll(IGNORED_GLOBAL_KEYS);
        KEYS = List.copyOf(keys);
    }

    private ServerConfigReader() {
    }

    static ServerConfig read(String fileName, String yamlText) {
        Optional<ConfigNode> root = YamlConfigParser.parse(fileName, yamlText);
        if (root.isEmpty()) {
            return ServerConfig.DEFAULTS;
        }
        MappingReader server = MappingReader.of(fileName, root.get()).expectKeys(KEYS);
        ModeConfig mode = server.mapping("mode").map(ModeReader::read).orElse(ModeConfig.STANDALONE);
        Optional<AuthorityReader.Authority> authority = Optional.empty();
        Optional<ConfigNode> transactionRule = server.value("transaction");
        for (ConfigNode each : server.list("rules")) {
            if (RuleTags.TRANSACTION.equals(each.localTag().orElse(""))) {
                if (transactionRule.isPresent()) {
                    throw server.error(each, "the transaction rule is configured twice: in 'transaction' and in a '!TRANSACTION' rule");
                }
                transactionRule = Optional.of(each);
                continue;
            }
            Optional<AuthorityReader.Authority> ruleAuthority = readGlobalRule(server, each);
            if (ruleAuthority.isPresent()) {
                if (authority.isPresent()) {
                    throw server.error(each, "a second !AUTHORITY rule");
                }
                authority = ruleAuthority;
            }
        }
        Optional<MappingReader> authoritySection = server.mapping("authority");
        if (authoritySection.isPresent()) {
            if (authority.isPresent()) {
                throw server.error(authoritySection.get().node(), "users are configured twice: in 'authority' and in a '!AUTHORITY' rule");
            }
            authority = Optional.of(AuthorityReader.read(authoritySection.get()));
        }
        for (String each : IGNORED_GLOBAL_KEYS) {
            if (!each.equals("transaction")) {
                server.value(each).ifPresent(value -> ignoreGlobalRule(server, each, value));
            }
        }
        TransactionConfig transaction = transaction(server, transactionRule);
        ServerProps props = ServerPropsReader.read(server.mapping("props"));
        List<ProxyUser> users = authority.map(AuthorityReader.Authority::users).filter(each -> !each.isEmpty())
                .orElse(List.of(ServerConfig.DEFAULT_USER));
        if (!props.frontendTls().enabled()) {
            for (ProxyUser each : users) {
                if (each.sslRequired()) {
                    throw server.error("user " + each.name() + ": sslRequired needs proxy-frontend-ssl-enabled: true in props");
                }
            }
        }
        return new ServerConfig(mode, users, props,
                authority.map(AuthorityReader.Authority::defaultMethod).orElse(ProxyUser.PROTOCOL_DEFAULT),
                authority.map(AuthorityReader.Authority::privilege).orElse(PrivilegeConfig.ALL_PERMITTED), transaction);
    }

    /**
     * The transaction rule's {@code defaultType} (XA unless it says LOCAL; {@code providerType} and {@code props} name
     * ShardingSphere's XA libraries, which Ashlar does not need) and props' {@code transaction-log-directory}.
     */
    private static TransactionConfig transaction(MappingReader server, Optional<ConfigNode> rule) {
        boolean twoPhase = TransactionConfig.DEFAULTS.twoPhase();
        if (rule.isPresent()) {
            if (!(rule.get() instanceof ConfigNode.Mapping)) {
                throw server.error(rule.get(), "expected the transaction rule as a mapping with defaultType, got " + rule.get().describe());
            }
            MappingReader reader = MappingReader.of(server.fileName(), rule.get());
            String type = reader.text("defaultType").map(String::strip).orElse("XA").toUpperCase(Locale.ROOT);
            switch (type) {
                case "XA" -> twoPhase = true;
                case "LOCAL" -> {
                    twoPhase = false;
                    LOG.warn("{}: transaction type LOCAL: a transaction that wrote to several data sources commits on one after"
                            + " another, and a failure or a crash between them leaves it committed on some only", server.fileName());
                }
                default -> throw server.error(reader.value("defaultType").orElseThrow(), "transaction type " + type
                        + " is not supported: Ashlar runs XA (two-phase commit, its default) or LOCAL");
            }
            if (reader.has("providerType")) {
                LOG.info("{}: transaction providerType is ignored: Ashlar's two-phase commit is its own", server.fileName());
            }
        }
        java.nio.file.Path directory = server.mapping("props")
                .flatMap(props -> props.nonBlankText(ServerPropsReader.TRANSACTION_LOG_DIRECTORY))
                .map(text -> java.nio.file.Path.of(text.strip())).orElse(TransactionConfig.DEFAULTS.logDirectory());
        return new TransactionConfig(twoPhase, directory);
    }

    /** One entry of server.yaml {@code rules:}; the users and privilege if it is the {@code !AUTHORITY} rule. */
    private static Optional<AuthorityReader.Authority> readGlobalRule(MappingReader server, ConfigNode rule) {
        String tag = rule.localTag().orElseThrow(() -> server.error(rule,
                "expected a tagged global rule such as !AUTHORITY, got " + rule.describe()));
        if (RuleTags.AUTHORITY.equals(tag)) {
            return Optional.of(AuthorityReader.read(MappingReader.of(server.fileName(), rule)));
        }
        if (RuleTags.IGNORED_GLOBAL_RULES.contains(tag)) {
            ignoreGlobalRule(server, tag, rule);
            return Optional.empty();
        }
        if (RuleTags.isDatabaseRule(tag)) {
            throw server.error(rule, "rule " + tag + " belongs in a config-*.yaml file (one logical database each), not in server.yaml");
        }
        throw server.error(rule, "unknown global rule " + tag + " (expected !AUTHORITY, or one Ashlar ignores: "
                + String.join(", ", RuleTags.IGNORED_GLOBAL_RULES.stream().sorted().toList()) + ")");
    }

    private static void ignoreGlobalRule(MappingReader server, String name, ConfigNode rule) {
        if ((RuleTags.TRANSACTION.equals(name) || "transaction".equals(name)) && rule instanceof ConfigNode.Mapping) {
            String type = MappingReader.of(server.fileName(), rule).text("defaultType").orElse("LOCAL");
            if (!"LOCAL".equals(type.strip().toUpperCase(Locale.ROOT))) {
                LOG.warn("{}: transaction type {} is ignored: Ashlar runs LOCAL transactions (one per data source)", server.fileName(), type);
                return;
            }
        }
        LOG.info("{}: ignoring global rule {} (Ashlar has no use for it)", server.fileName(), name);
    }
}
