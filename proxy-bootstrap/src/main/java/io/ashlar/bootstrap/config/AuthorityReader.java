package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.ProxyUser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the users of server.yaml in every ShardingSphere-Proxy spelling into {@link ProxyUser}s:
 * <ul>
 *   <li>5.1: {@code rules: - !AUTHORITY {users: [root@%:root], provider: {type: ALL_PRIVILEGES_PERMITTED}}};</li>
 *   <li>5.2-5.3: the same rule with {@code users: [{user: root@%, password: root}]} and {@code privilege:};</li>
 *   <li>5.4+: top-level {@code authority: {users, privilege, authenticators, defaultAuthenticator}}.</li>
 * </ul>
 * A user's authentication method is, in order: Ashlar's own per-user {@code authenticationMethod}
 * ({@code scram-sha-256}, {@code md5}, {@code password}); the type of the authenticator its
 * {@code authenticationMethodName} names; the type of {@code defaultAuthenticator}; and when none of
 * these is given, {@link ProxyUser#PROTOCOL_DEFAULT}, ShardingSphere-Proxy's "according to the frontend
 * protocol": MD5 for PostgreSQL clients, SHA256 for openGauss clients. The authenticator types are
 * ShardingSphere's for PostgreSQL and openGauss ({@code MD5}, {@code PASSWORD}, {@code SCRAM_SHA256}),
 * where {@code SCRAM_SHA256} is real SCRAM-SHA-256 for PostgreSQL clients (ShardingSphere 5.4 and 5.5
 * still answer it with MD5) and openGauss's SHA256 for openGauss clients.
 *
 * <p>The privilege ({@code provider:} in 5.1, {@code privilege:} from 5.2) is {@code ALL_PERMITTED} (5.1:
 * {@code ALL_PRIVILEGES_PERMITTED}), or {@code DATABASE_PERMITTED} (5.1: {@code SCHEMA_PRIVILEGES_PERMITTED}) with
 * {@code props: {user-database-mappings: "root@%=sharding_db, app@=orders"}} (5.1: {@code user-schema-mappings}),
 * which limits each user to the databases mapped to it. {@code NATIVE} is refused: it would create users on the
 * data sources.
 *
 * <p>{@code admin: true} (5.4 and later) lets the user run the proxy's admin commands ({@code SHOW POOLS},
 * {@code SHOW CLIENTS}, ...: docs/operations.md); 5.1's {@code user@host:password} form has no such key, and its
 * users are no admins.
 *
 * <p>Ashlar's own user keys: {@code authenticationMethod} (above) and {@code sslRequired: true}, which refuses the
 * user's logins without TLS. A user with an empty password is kept, with a warning, and can never log in: PostgreSQL
 * accepts no empty password.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/authority/">ShardingSphere-Proxy authority</a>
 */
final class AuthorityReader {

    private static final Logger LOG = LoggerFactory.getLogger(AuthorityReader.class);

    private static final Set<String> ALL_PERMITTED = Set.of("ALL_PERMITTED", "ALL_PRIVILEGES_PERMITTED");
    private static final Set<String> DATABASE_PERMITTED = Set.of("DATABASE_PERMITTED", "SCHEMA_PRIVILEGES_PERMITTED");
    private static final List<String> MAPPINGS = List.of("user-database-mappings", "user-schema-mappings");

    /**
     * What an authority block says.
     *
     * @param users the users, in file order
     * @param defaultMethod the method of users who name none (and of unknown users' made-up exchange)
     * @param privilege which databases the users may use
     */
    record Authority(List<ProxyUser> users, String defaultMethod, PrivilegeConfig privilege) {
    }

    private AuthorityReader() {
    }

    static Authority read(MappingReader authority) {
        authority.expectKeys("users", "provider", "privilege", "authenticators", "defaultAuthenticator");
        if (authority.has("provider") && authority.has("privilege")) {
            throw authority.error(authority.value("privilege").orElseThrow(), "the privilege is given twice: as 'provider'"
                    + " (5.1) and as 'privilege' (5.2+)");
        }
        Map<String, String> authenticators = readAuthenticators(authority);
        Optional<String> defaultMethod = authority.nonBlankText("defaultAuthenticator").map(name -> {
            String method = authenticators.get(name);
            if (method == null) {
                throw authority.error(authority.value("defaultAuthenticator").orElseThrow(),
                        "defaultAuthenticator '" + name + "' is not defined in 'authenticators'");
            }
            return method;
        });
        List<ProxyUser> result = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (ConfigNode each : authority.list("users")) {
            ProxyUser user = readUser(authority, each, authenticators, defaultMethod.orElse(ProxyUser.PROTOCOL_DEFAULT));
            if (!seen.add(user.name().toLowerCase(Locale.ROOT) + "@" + user.host().toLowerCase(Locale.ROOT))) {
                throw authority.error(each, "user " + user.name() + "@" + user.host() + " is defined twice");
            }
            result.add(user);
        }
        PrivilegeConfig privilege = readPrivilege(authority, authority.has("provider") ? "provider" : "privilege", result);
        return new Authority(result, defaultMethod.orElse(ProxyUser.PROTOCOL_DEFAULT), privilege);
    }

    private static PrivilegeConfig readPrivilege(MappingReader authority, String key, List<ProxyUser> users) {
        Optional<MappingReader> section = authority.mapping(key);
        if (section.isEmpty()) {
            return PrivilegeConfig.ALL_PERMITTED;
        }
        MappingReader privilege = section.get().expectKeys("type", "props");
        String type = privilege.text("type").orElse("ALL_PERMITTED").strip();
        String upper = type.toUpperCase(Locale.ROOT);
        if (ALL_PERMITTED.contains(upper)) {
            return PrivilegeConfig.ALL_PERMITTED;
        }
        if (!DATABASE_PERMITTED.contains(upper)) {
            throw privilege.error(privilege.value("type").orElseThrow(), "privilege type '" + type + "' is not supported by"
                    + " Ashlar (expected ALL_PERMITTED, or DATABASE_PERMITTED with user-database-mappings)");
        }
        Optional<MappingReader> props = privilege.mapping("props");
        if (props.isEmpty()) {
            throw privilege.error(privilege.value("type").orElseThrow(), type + " needs props: {user-database-mappings:"
                    + " \"<user>@<host>=<database>, ...\"}");
        }
        props.get().expectKeys(MAPPINGS);
        if (props.get().has(MAPPINGS.get(0)) && props.get().has(MAPPINGS.get(1))) {
            throw props.get().error(props.get().value(MAPPINGS.get(1)).orElseThrow(), "the mappings are given twice: as "
                    + "user-database-mappings and as user-schema-mappings");
        }
        String mappingsKey = props.get().has(MAPPINGS.get(0)) ? MAPPINGS.get(0) : MAPPINGS.get(1);
        ConfigNode mappingsNode = props.get().value(mappingsKey).orElseThrow(() -> props.get().error(
                "missing 'user-database-mappings' (\"<user>@<host>=<database>, ...\")"));
        List<PrivilegeConfig.DatabaseGrant> grants = new ArrayList<>();
        for (String each : props.get().scalarText(mappingsNode).split(",")) {
            String mapping = each.strip();
            if (mapping.isEmpty()) {
                continue;
            }
            int at = mapping.indexOf('@');
            int equals = mapping.indexOf('=', Math.max(at, 0));
            if (at <= 0 || equals < 0 || equals == mapping.length() - 1) {
                throw props.get().error(mappingsNode, "mapping '" + mapping + "' is not <user>@<host>=<database>"
                        + " (an empty host, or %, is any host)");
            }
            grants.add(new PrivilegeConfig.DatabaseGrant(mapping.substring(0, at).strip(),
                    mapping.substring(at + 1, equals).strip(), mapping.substring(equals + 1).strip()));
        }
        if (grants.isEmpty()) {
            throw props.get().error(mappingsNode, mappingsKey + " is empty: with " + type + " nobody could use any database");
        }
        for (PrivilegeConfig.DatabaseGrant each : grants) {
            if (users.stream().noneMatch(each::grantsTo)) {
                LOG.warn("{}: {} {} names no configured user: it grants nothing", authority.fileName(), mappingsKey, each);
            }
        }
        return PrivilegeConfig.databasePermitted(grants);
    }

    /** Authenticator name to Ashlar authentication method. */
    private static Map<String, String> readAuthenticators(MappingReader authority) {
        Optional<MappingReader> section = authority.mapping("authenticators");
        if (section.isEmpty()) {
            return Map.of();
        }
        Map<String, String> result = new HashMap<>();
        for (ConfigNode.Entry each : section.get().entries()) {
            MappingReader authenticator = MappingReader.of(authority.fileName(), each.value()).expectKeys("type", "props");
            String type = authenticator.requiredText("type");
            result.put(each.key(), methodOfAuthenticatorType(authenticator, type));
        }
        return result;
    }

    private static String methodOfAuthenticatorType(MappingReader authenticator, String type) {
        return switch (type.strip().toUpperCase(Locale.ROOT).replace('-', '_')) {
            case "MD5" -> ProxyUser.MD5;
            case "SCRAM_SHA256", "SCRAM_SHA_256" -> ProxyUser.SCRAM_SHA_256;
            case "PASSWORD", "CLEAR_TEXT", "CLEARTEXT" -> ProxyUser.PASSWORD;
            default -> throw authenticator.error(authenticator.value("type").orElseThrow(), "authenticator type '" + type
                    + "' is not supported by Ashlar (expected MD5, SCRAM_SHA256 or PASSWORD)");
        };
    }

    private static ProxyUser readUser(MappingReader authority, ConfigNode node, Map<String, String> authenticators, String defaultMethod) {
        if (node instanceof ConfigNode.Scalar scalar && !scalar.isNull()) {
            return readUserString(authority, scalar, defaultMethod);
        }
        MappingReader user = MappingReader.of(authority.fileName(), node)
                .expectKeys("user", "password", "admin", "authenticationMethodName", "authenticationMethod", "sslRequired");
        String[] nameAndHost = splitUser(user.requiredText("user"));
        String method = defaultMethod;
        Optional<String> authenticatorName = user.nonBlankText("authenticationMethodName");
        if (authenticatorName.isPresent()) {
            method = authenticators.get(authenticatorName.get());
            if (method == null) {
                throw user.error(user.value("authenticationMethodName").orElseThrow(),
                        "authenticator '" + authenticatorName.get() + "' is not defined in 'authenticators'");
            }
        }
        Optional<String> ashlarMethod = user.nonBlankText("authenticationMethod");
        if (ashlarMethod.isPresent()) {
            method = switch (ashlarMethod.get().strip().toLowerCase(Locale.ROOT)) {
                case ProxyUser.SCRAM_SHA_256 -> ProxyUser.SCRAM_SHA_256;
                case ProxyUser.MD5 -> ProxyUser.MD5;
                case ProxyUser.PASSWORD -> ProxyUser.PASSWORD;
                default -> throw user.error(user.value("authenticationMethod").orElseThrow(), "unknown authenticationMethod '"
                        + ashlarMethod.get() + "' (expected one of: scram-sha-256, md5, password)");
            };
        }
        if (ProxyUser.PASSWORD.equals(method)) {
            LOG.warn("{}: user {} logs in with a clear-text password", authority.fileName(), nameAndHost[0]);
        }
        String password = user.text("password").orElse("");
        warnIfEmpty(authority, nameAndHost[0], password);
        return new ProxyUser(nameAndHost[0], nameAndHost[1], password, method, user.bool("sslRequired", false),
                user.bool("admin", false));
    }

    /** PostgreSQL's {@code CREATE ROLE x PASSWORD ''}: "empty string is not a valid password", and no login by password. */
    private static void warnIfEmpty(MappingReader authority, String user, String password) {
        if (password.isEmpty()) {
            LOG.warn("{}: user {} has an empty password, which is not a valid password: it cannot log in"
                    + " (PostgreSQL accepts no empty password)", authority.fileName(), user);
        }
    }

    /** 5.1's {@code <user>@<host>:<password>}; the password is everything after the first colon. */
    private static ProxyUser readUserString(MappingReader authority, ConfigNode.Scalar scalar, String defaultMethod) {
        String text = scalar.text();
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw authority.error(scalar, "expected <user>@<host>:<password>, got " + scalar.describe());
        }
        String[] nameAndHost = splitUser(text.substring(0, colon));
        if (nameAndHost[0].isEmpty()) {
            throw authority.error(scalar, "expected <user>@<host>:<password>, got " + scalar.describe());
        }
        warnIfEmpty(authority, nameAndHost[0], text.substring(colon + 1));
        return new ProxyUser(nameAndHost[0], nameAndHost[1], text.substring(colon + 1), defaultMethod);
    }

    /** {@code root@%} to {@code [root, %]}; no host, or an empty one, is any host. */
    private static String[] splitUser(String user) {
        String trimmed = user.strip();
        int at = trimmed.indexOf('@');
        if (at < 0) {
            return new String[] {trimmed, "%"};
        }
        String host = trimmed.substring(at + 1).strip();
        return new String[] {trimmed.substring(0, at).strip(), host.isEmpty() ? "%" : host};
    }
}
