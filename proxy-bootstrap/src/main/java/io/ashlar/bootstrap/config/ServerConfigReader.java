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
        for (ConfigNode each : server.list("rules")) {
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
            server.value(each).ifPresent(value -> ignoreGlobalRule(server, each, value));
        }
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
                authority.map(AuthorityReader.Authority::privilege).orElse(PrivilegeConfig.ALL_PERMITTED));
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
