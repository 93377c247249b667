package io.ashlar.bootstrap;

import io.ashlar.backend.config.ProxyUser;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.FrontendTlsConfig;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.config.ServerProps;
import io.ashlar.frontend.auth.AuthenticationMethod;
import io.ashlar.frontend.auth.DatabaseGrants;
import io.ashlar.frontend.auth.LoginUser;
import io.ashlar.frontend.auth.PasswordVerifiers;
import io.ashlar.frontend.server.FrontendContext;
import io.ashlar.frontend.server.FrontendPolicy;
import io.ashlar.frontend.tls.FrontendTls;
import io.ashlar.protocol.MessageMemory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's door as server.yaml describes it, made into what the frontend runs on: each user's
 * password verifiers, TLS requirement and granted databases; the connection limit, the login
 * timeout and delay; TLS. Says in the log what it made of them.
 */
final class FrontendSetup {

    private static final Logger LOG = LoggerFactory.getLogger(FrontendSetup.class);

    /** How often the certificate and key files are read again to see whether they changed. */
    static final long TLS_RELOAD_CHECK_MILLIS = 2_000;

    private FrontendSetup() {
    }

    /**
     * The frontend context of a server configuration.
     *
     * @throws ConfigurationException when TLS cannot be set up with the files and settings given
     */
    static FrontendContext context(ServerConfig server, Map<String, LogicalDatabase> databases) {
        ServerProps props = server.props();
        Map<String, LoginUser> users = new LinkedHashMap<>();
        for (ProxyUser user : server.users()) {
            DatabaseGrants grants = server.privilege().allPermitted() ? DatabaseGrants.ALL
                    : DatabaseGrants.only(server.privilege().databasesOf(user));
            users.put(user.name(), new LoginUser(PasswordVerifiers.forUser(user), user.sslRequired(), grants, user.admin()));
            if (!server.privilege().allPermitted()) {
                LOG.info("user {} may use {}", user.name(), grants);
            }
        }
        int maxConnections = props.frontendMaxConnections();
        long openFiles = FrontendPolicy.openFileLimit();
        if (maxConnections == 0) {
            maxConnections = FrontendPolicy.defaultMaxConnections(openFiles);
            LOG.info("at most {} client connections at once (proxy-frontend-max-connections is not set: half the {} files"
                    + " this process may open, at most {})", maxConnections, openFiles < 0 ? "unknown number of"
                    : String.valueOf(openFiles), FrontendPolicy.DEFAULT_MAX_CONNECTIONS_CAP);
        } else if (openFiles > 0 && maxConnections > openFiles / 2) {
            LOG.warn("proxy-frontend-max-connections {} is more than half the {} files this process may open: clients that"
                    + " never log in could take the descriptors backend connections need", maxConnections, openFiles);
        }
        AuthenticationMethod unknownUserMethod = AuthenticationMethod.fromConfig(server.defaultAuthenticationMethod())
                .orElseThrow(() -> new ConfigurationException("server.yaml: unknown default authentication method "
                        + server.defaultAuthenticationMethod()));
        // A client's message is held whole before it runs: it gets a statement's memory budget.
        long maxMessage = Math.max(MessageMemory.COUNTED_FROM, props.statementMemoryLimit());
        FrontendPolicy policy = new FrontendPolicy(maxConnections, props.authenticationTimeoutSeconds() * 1000L,
                props.authDelayMilliseconds(), props.frontendTls().required(), unknownUserMethod, maxMessage,
                FrontendPolicy.defaultMessageMemory(Runtime.getRuntime().maxMemory(), maxMessage));
        Optional<FrontendTls> tls = tls(props);
        return new FrontendContext(users, databases, policy, tls);
    }

    private static Optional<FrontendTls> tls(ServerProps props) {
        FrontendTlsConfig config = props.frontendTls();
        if (!config.enabled()) {
            return Optional.empty();
        }
        FrontendTls result;
        try {
            if (config.certFile().isPresent()) {
                result = FrontendTls.fromFiles(Path.of(config.certFile().get()), Path.of(config.keyFile().orElseThrow()),
                        config.versions(), config.ciphers(), TLS_RELOAD_CHECK_MILLIS);
            } else {
                result = FrontendTls.selfSigned(certificateNames(props.bindAddress()), config.versions(), config.ciphers());
            }
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("server.yaml: " + e.getMessage(), e);
        }
        LOG.info("TLS for clients ({}, {}{}): {}", result.engine(), String.join(", ", config.versions()),
                config.required() ? ", required for every login" : "", result.description());
        if (config.certFile().isEmpty()) {
            LOG.warn("TLS for clients uses a self-signed certificate generated at start: clients cannot verify whom they"
                    + " talk to; set proxy-frontend-ssl-cert-file and proxy-frontend-ssl-key-file");
        }
        return Optional.of(result);
    }

    /** The names a self-signed certificate carries: this machine's loopback names and the addresses listened on. */
    private static List<String> certificateNames(String bindAddress) {
        List<String> result = new ArrayList<>(List.of("localhost", "127.0.0.1", "::1"));
        for (String each : bindAddress.split(",")) {
            String address = each.strip();
            if (!address.isEmpty() && !address.equals("*") && !address.equals("0.0.0.0") && !address.equals("::")
                    && !result.contains(address)) {
                result.add(address);
            }
        }
        return result;
    }
}
