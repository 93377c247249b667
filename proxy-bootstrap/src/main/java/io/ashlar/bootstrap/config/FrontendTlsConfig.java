package io.ashlar.bootstrap.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS for the proxy's clients, from server.yaml {@code props:}.
 *
 * @param enabled {@code proxy-frontend-ssl-enabled}: answer SSLRequest with TLS
 * @param versions {@code proxy-frontend-ssl-version}: TLS versions, {@code TLSv1.2,TLSv1.3} by default
 * @param ciphers {@code proxy-frontend-ssl-cipher}: cipher suites, empty for the TLS engine's defaults
 * @param certFile {@code proxy-frontend-ssl-cert-file} (Ashlar's own): the certificate, PEM or DER; empty for
 *                 a self-signed certificate made at start
 * @param keyFile {@code proxy-frontend-ssl-key-file} (Ashlar's own): its key, PKCS#8 PEM or DER
 * @param required {@code proxy-frontend-ssl-required} (Ashlar's own): refuse every login without TLS
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/props/">ShardingSphere-Proxy properties</a>
 */
public record FrontendTlsConfig(boolean enabled, List<String> versions, List<String> ciphers, Optional<String> certFile,
                                Optional<String> keyFile, boolean required) {

    /** ShardingSphere-Proxy's default for {@code proxy-frontend-ssl-version}. */
    public static final List<String> DEFAULT_VERSIONS = List.of("TLSv1.2", "TLSv1.3");

    /** No TLS: SSLRequests are answered 'N'. */
    public static final FrontendTlsConfig DISABLED = new FrontendTlsConfig(false, DEFAULT_VERSIONS, List.of(),
            Optional.empty(), Optional.empty(), false);

    public FrontendTlsConfig {
        versions = List.copyOf(versions);
        ciphers = List.copyOf(ciphers);
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
        if (certFile.isPresent() != keyFile.isPresent()) {
            throw new IllegalArgumentException("a certificate file needs its key file, and a key file its certificate");
        }
        if (!enabled && (certFile.isPresent() || required)) {
            throw new IllegalArgumentException("TLS settings without TLS enabled");
        }
    }
}
