package io.ashlar.frontend.tls;

import io.ashlar.backend.pg.BackendTls;
import io.ashlar.backend.pg.PrivateKeys;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for the proxy's clients: the certificate and key they are shown, the TLS versions and cipher
 * suites they may use, and the {@code tls-server-end-point} hash SCRAM-SHA-256-PLUS binds to.
 *
 * <ul>
 * <li>From files ({@code proxy-frontend-ssl-cert-file}, {@code proxy-frontend-ssl-key-file}): the
 * certificate (PEM or DER, its chain after it) and its key (PKCS#8, PEM or DER), read as the data
 * sources' {@code sslcert}/{@code sslkey} are ({@link BackendTls}, {@link PrivateKeys}). A thread
 * reads both files again every few seconds; when they changed and hold a certificate with its own
 * key, new connections get them (existing ones keep their session), as PostgreSQL does on a
 * reload. A changed pair that does not load (half written, a key of another certificate) leaves
 * the certificate loaded before in use, with one warning per pair.</li>
 * <li>Without files: a self-signed certificate made at start ({@link SelfSignedCertificate}), as
 * ShardingSphere-Proxy does, and said so in the log.</li>
 * </ul>
 * TLS 1.2 and 1.3 only (PostgreSQL's {@code ssl_min_protocol_version} is TLSv1.2). The engine is
 * OpenSSL (netty-tcnative's BoringSSL) where it loads, else the JDK's;
 * {@code -Dashlar.frontendTlsProvider=jdk} (or {@code openssl}) picks one.
 *
 * @see <a href="https://www.postgresql.org/docs/current/ssl-tcp.html">PostgreSQL: Secure TCP/IP Connections with SSL</a>
 */
public final class FrontendTls implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FrontendTls.class);

    /** ShardingSphere-Proxy's default for {@code proxy-frontend-ssl-version}. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.2", "TLSv1.3");

    private static final List<String> PROTOCOLS = List.of("TLSv1.2", "TLSv1.3");
    private static final String PROVIDER_PROPERTY = "ashlar.frontendTlsProvider";
    private static final String CERT_SETTING = "proxy-frontend-ssl-cert-file";
    private static final String KEY_SETTING = "proxy-frontend-ssl-key-file";

    /**
     * What a new TLS connection gets.
     *
     * @param context makes the connection's SslHandler
     * @param certificateHash {@code tls-server-end-point} of the certificate, empty when its signature
     *        algorithm names no hash (no SCRAM-SHA-256-PLUS then, as in PostgreSQL)
     */
    public record Identity(SslContext context, byte[] certificateHash) {
    }

    private final List<String> protocols;
    private final List<String> ciphers;
    private final SslProvider provider;
    private final Optional<Path> certFile;
    private final Optional<Path> keyFile;
    private volatile Identity identity;
    private volatile String description;
    /** The bytes of the files the identity came from, and of the last pair that did not load; the watcher's own. */
    private byte[] loadedCert = new byte[0];
    private byte[] loadedKey = new byte[0];
    private byte[] refusedCert = new byte[0];
    private byte[] refusedKey = new byte[0];
    private final ScheduledExecutorService watcher;

    private FrontendTls(List<String> protocols, List<String> ciphers, Optional<Path> certFile, Optional<Path> keyFile,
                        long reloadCheckMillis) {
        this.protocols = checkedProtocols(protocols);
        this.ciphers = List.copyOf(ciphers);
        this.provider = provider();
        this.certFile = certFile;
        this.keyFile = keyFile;
        if (certFile.isPresent()) {
            byte[] cert = read(certFile.get(), CERT_SETTING);
            byte[] key = read(keyFile.orElseThrow(), KEY_SETTING);
            install(cert, key);
            watcher = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("ashlar-tls-reload").factory());
            watcher.scheduleWithFixedDelay(() -> {
                try {
                    checkFiles();
                } catch (Throwable e) {
                    // A periodic task that throws is never run again: certificates would no longer be reloaded.
                    LOG.warn("TLS for clients: looking for a new certificate failed: {}", e.toString());
                }
            }, reloadCheckMillis, reloadCheckMillis, TimeUnit.MILLISECONDS);
        } else {
            watcher = null;
        }
    }

    /**
     * TLS with the certificate and key of these files, read again every {@code reloadCheckMillis}.
     *
     * @param protocols TLS versions ({@code TLSv1.2}, {@code TLSv1.3})
     * @param ciphers cipher suites by their IANA (JDK) names, empty for the engine's defaults
     * @throws IllegalArgumentException naming the setting and the reason when a file cannot be read,
     *     the key is not the certificate's, or a version or cipher suite cannot be used
     */
    public static FrontendTls fromFiles(Path certFile, Path keyFile, List<String> protocols, List<String> ciphers,
                                        long reloadCheckMillis) {
        return new FrontendTls(protocols, ciphers, Optional.of(certFile), Optional.of(keyFile), reloadCheckMillis);
    }

    /**
     * TLS with a certificate made now, naming {@code names} (host names, IP literals).
     *
     * @throws IllegalArgumentException when a version or cipher suite cannot be used
     */
    public static FrontendTls selfSigned(List<String> names, List<String> protocols, List<String> ciphers) {
        FrontendTls result = new FrontendTls(protocols, ciphers, Optional.empty(), Optional.empty(), 0);
        SelfSignedCertificate made = SelfSignedCertificate.generate(names);
        result.identity = result.build(made.key(), List.of(made.certificate()));
        result.description = "a self-signed certificate generated at start (" + describe(made.certificate())
                + "): clients can encrypt (sslmode=require) but not verify it; name a certificate in " + CERT_SETTING
                + " and " + KEY_SETTING + " for verify-ca and verify-full";
        return result;
    }

    /** What new connections get now. */
    public Identity identity() {
        return identity;
    }

    /** Where the certificate in use comes from and what it is, for the log. */
    public String description() {
        return description;
    }

    /**
     * Reads the files again and installs them if they changed and load; what the watcher runs.
     *
     * @return whether a new certificate was installed
     */
    boolean checkFiles() {
        try {
            byte[] cert = Files.readAllBytes(certFile.orElseThrow());
            byte[] key = Files.readAllBytes(keyFile.orElseThrow());
            if (Arrays.equals(cert, loadedCert) && Arrays.equals(key, loadedKey)) {
                return false;
            }
            try {
                install(cert, key);
                LOG.info("TLS for clients reloaded: {}", description);
                return true;
            } catch (IllegalArgumentException e) {
                if (!Arrays.equals(cert, refusedCert) || !Arrays.equals(key, refusedKey)) {
                    refusedCert = cert;
                    refusedKey = key;
                    LOG.warn("TLS for clients not reloaded, new connections keep the certificate loaded before: {}",
                            e.getMessage());
                }
                return false;
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("TLS for clients: cannot read {} or {} to look for a new certificate: {}", certFile.orElseThrow(),
                    keyFile.orElseThrow(), e.toString());
            return false;
        }
    }

    /** Loads a certificate file's and a key file's bytes, or throws IllegalArgumentException. */
    private void install(byte[] certBytes, byte[] keyBytes) {
        Path cert = certFile.orElseThrow();
        Path key = keyFile.orElseThrow();
        List<X509Certificate> chain = BackendTls.certificates(certBytes, cert.toString(), CERT_SETTING);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException(CERT_SETTING + " " + cert + " holds no certificate");
        }
        PrivateKey privateKey = PrivateKeys.parse(keyBytes, key.toString(), null, KEY_SETTING, "");
        if (!matches(privateKey, chain.getFirst())) {
            throw new IllegalArgumentException(KEY_SETTING + " " + key + " is not the key of the certificate in "
                    + CERT_SETTING + " " + cert);
        }
        Identity built = build(privateKey, chain);
        X509Certificate leaf = chain.getFirst();
        try {
            leaf.checkValidity();
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            LOG.warn("the certificate of {} {} is not valid now ({}): clients that verify it will refuse it", CERT_SETTING,
                    cert, e.getMessage());
        }
        identity = built;
        description = "the certificate of " + cert + " (" + describe(leaf) + ")";
        loadedCert = certBytes;
        loadedKey = keyBytes;
    }

    private Identity build(PrivateKey key, List<X509Certificate> chain) {
        SslContext context;
        try {
            context = SslContextBuilder.forServer(key, chain)
                    .sslProvider(provider)
                    .protocols(protocols)
                    .ciphers(ciphers.isEmpty() ? null : ciphers, IdentityCipherSuiteFilter.INSTANCE)
                    .build();
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException("TLS for clients cannot be set up with proxy-frontend-ssl-version "
                    + String.join(",", protocols) + (ciphers.isEmpty() ? "" : " and proxy-frontend-ssl-cipher "
                    + String.join(",", ciphers)) + ": " + e.getMessage(), e);
        }
        // A cipher suite the engine does not know fails when an engine is made: at start, not at a client's handshake.
        SSLEngine engine = null;
        try {
            engine = context.newEngine(ByteBufAllocator.DEFAULT);
        } catch (RuntimeException e) {
            ReferenceCountUtil.release(context);
            throw new IllegalArgumentException("proxy-frontend-ssl-cipher " + String.join(",", ciphers)
                    + " cannot be used: " + e.getMessage(), e);
        } finally {
            ReferenceCountUtil.release(engine);
        }
        byte[] hash = BackendTls.endPointHash(chain.getFirst());
        return new Identity(context, hash == null ? new byte[0] : hash);
    }

    /** Whether the key signs what the certificate's public key verifies. */
    private static boolean matches(PrivateKey key, X509Certificate certificate) {
        String algorithm = switch (key.getAlgorithm().toUpperCase(Locale.ROOT)) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "DSA" -> "SHA256withDSA";
            case "ED25519", "ED448", "EDDSA" -> key.getAlgorithm();
            default -> "";
        };
        if (algorithm.isEmpty()) {
            return true; // RSASSA-PSS and the like: the handshake will tell
        }
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static String describe(X509Certificate certificate) {
        String fingerprint;
        try {
            fingerprint = HexFormat.ofDelimiter(":").withUpperCase().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(certificate.getEncoded()));
        } catch (GeneralSecurityException e) {
            fingerprint = "unknown";
        }
        return certificate.getSubjectX500Principal().getName() + ", valid until " + certificate.getNotAfter().toInstant()
                + ", SHA-256 fingerprint " + fingerprint;
    }

    private static List<String> checkedProtocols(List<String> protocols) {
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("proxy-frontend-ssl-version names no TLS version (expected TLSv1.2, TLSv1.3 or both)");
        }
        for (String each : protocols) {
            if (!PROTOCOLS.contains(each)) {
                throw new IllegalArgumentException("proxy-frontend-ssl-version " + each + " is not supported: Ashlar speaks"
                        + " TLSv1.2 and TLSv1.3 (PostgreSQL's ssl_min_protocol_version is TLSv1.2)");
            }
        }
        return List.copyOf(protocols);
    }

    private static SslProvider provider() {
        String chosen = System.getProperty(PROVIDER_PROPERTY, "");
        if (chosen.equalsIgnoreCase("jdk")) {
            return SslProvider.JDK;
        }
        if (chosen.equalsIgnoreCase("openssl")) {
            return SslProvider.OPENSSL;
        }
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /** The TLS engine in use: OpenSSL or JDK. */
    public String engine() {
        return provider == SslProvider.JDK ? "the JDK's TLS" : "OpenSSL (" + OpenSsl.versionString() + ")";
    }

    private static byte[] read(Path file, String setting) {
        try {
            return Files.readAllBytes(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException(setting + " " + file + " does not exist", e);
        } catch (IOException e) {
            throw new IllegalArgumentException(setting + " " + file + " cannot be read: " + e, e);
        }
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.shutdownNow();
        }
    }
}
