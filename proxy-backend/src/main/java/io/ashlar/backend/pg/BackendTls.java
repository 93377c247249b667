package io.ashlar.backend.pg;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * TLS to one data source, read from its JDBC URL and props the way pgjdbc 42 reads them, so that a
 * data source that pgjdbc connected securely connects as securely here:
 * <ul>
 * <li>{@code sslmode}: disable, allow (clear text first, TLS when the server refuses it with
 *     28000), prefer (the default: TLS when the server speaks it, clear text after 'N' or after a
 *     28000 over TLS), require (TLS, the certificate not checked), verify-ca (signed by a
 *     certificate of {@code sslrootcert}), verify-full (and naming the host of the URL). Without
 *     {@code sslmode}, {@code ssl=true} (or a bare {@code ssl}) means verify-full.</li>
 * <li>{@code sslrootcert}: PEM or DER certificates, default {@code ~/.postgresql/root.crt};
 *     read for verify-ca and verify-full only, as pgjdbc does.</li>
 * <li>{@code sslcert} and {@code sslkey}: the client certificate (PEM or DER, the chain after it)
 *     and its key: PKCS#8, PEM ({@code BEGIN PRIVATE KEY}) or DER ({@code .pk8}), encrypted PKCS#8
 *     with {@code sslpassword}, or a PKCS#12 file ({@code .p12}, {@code .pfx}) with
 *     {@code sslpassword}. Defaults {@code ~/.postgresql/postgresql.crt} and {@code postgresql.pk8},
 *     used when they exist. OpenSSL's traditional keys ({@code BEGIN RSA PRIVATE KEY}, {@code BEGIN
 *     EC PRIVATE KEY}) are refused with the command that converts them.</li>
 * <li>{@code channelBinding}: disable, prefer (default), require: SCRAM-SHA-256-PLUS with
 *     {@code tls-server-end-point} when the server offers it over TLS.</li>
 * </ul>
 * Settings that would hand TLS to a class of pgjdbc's ({@code sslfactory},
 * {@code sslhostnameverifier}, {@code sslpasswordcallback}) or change how TLS starts
 * ({@code sslNegotiation=direct}) are refused rather than ignored: ignoring them could connect less
 * securely than the operator asked. Files are read once, when the data source is loaded.
 *
 * <p>The TLS engine is OpenSSL (netty-tcnative's BoringSSL) when it is on the class path, else the
 * JDK's; {@code -Dashlar.backendTlsProvider=jdk} (or {@code openssl}) picks one.
 *
 * @see <a href="https://jdbc.postgresql.org/documentation/ssl/">pgjdbc: Using SSL</a>
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-SSL">SSL Session Encryption</a>
 */
public final class BackendTls {

    /** pgjdbc's {@code SslMode}, in its order: each from REQUIRE on refuses clear text. */
    public enum Mode {
        DISABLE, ALLOW, PREFER, REQUIRE, VERIFY_CA, VERIFY_FULL;

        /** Whether a connection without TLS is refused. */
        public boolean requiresTls() {
            return compareTo(REQUIRE) >= 0;
        }

        /** The name pgjdbc gives it ({@code verify-full}). */
        public String setting() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** pgjdbc's {@code channelBinding}: whether SCRAM-SHA-256-PLUS is used, and whether it must be. */
    public enum ChannelBinding { DISABLE, PREFER, REQUIRE }

    /** No TLS at all: what {@code sslmode=disable} reads as. */
    public static final BackendTls DISABLED = new BackendTls(Mode.DISABLE, ChannelBinding.PREFER, null, "", "");

    private static final String PROVIDER_PROPERTY = "ashlar.backendTlsProvider";
    private static final List<String> REFUSED = List.of("sslfactory", "sslfactoryarg", "sslhostnameverifier", "sslpasswordcallback");

    private final Mode mode;
    private final ChannelBinding channelBinding;
    private final SslContext context;
    /** What {@code sslmode} (or {@code ssl=true}) the data source gave, for messages. */
    private final String modeSetting;
    /** The file of trusted certificates (verify-ca, verify-full), for messages; else empty. */
    private final String rootCert;

    private BackendTls(Mode mode, ChannelBinding channelBinding, SslContext context, String modeSetting, String rootCert) {
        this.mode = mode;
        this.channelBinding = channelBinding;
        this.context = context;
        this.modeSetting = modeSetting;
        this.rootCert = rootCert;
    }

    /**
     * The TLS settings among a data source's URL settings and props (props win, as in
     * {@link ConnectSpec}); throws {@link IllegalArgumentException} with the reason when one is
     * invalid, unsupported, or names a file that cannot be read.
     */
    public static BackendTls of(Map<String, String> settings) {
        return of(settings, defaultProvider(), true);
    }

    /**
     * Checks the settings as {@link #of} does, without reading the files they name (a
     * configuration may be checked where the proxy does not run).
     */
    public static void check(Map<String, String> settings) {
        of(settings, SslProvider.JDK, false);
    }

    static BackendTls of(Map<String, String> settings, SslProvider provider, boolean readFiles) {
        for (String each : REFUSED) {
            if (settings.containsKey(each)) {
                throw new IllegalArgumentException(each + " is not supported: Ashlar's backend connections read sslmode,"
                        + " sslrootcert, sslcert, sslkey and sslpassword (sslfactory=org.postgresql.ssl.NonValidatingFactory"
                        + " is sslmode=require)");
            }
        }
        String negotiation = settings.getOrDefault("sslNegotiation", "postgres").strip();
        if (!negotiation.equalsIgnoreCase("postgres")) {
            throw new IllegalArgumentException("sslNegotiation=" + negotiation + " is not supported: Ashlar starts TLS"
                    + " with an SSLRequest (sslNegotiation=postgres)");
        }
        String modeSetting;
        Mode mode;
        String sslmode = settings.get("sslmode");
        if (sslmode != null) {
            mode = parseMode(sslmode.strip());
            modeSetting = "sslmode=" + mode.setting();
        } else {
            String ssl = settings.get("ssl");
            boolean on = ssl != null && (ssl.strip().isEmpty() || ssl.strip().equalsIgnoreCase("true"));
            mode = on ? Mode.VERIFY_FULL : Mode.PREFER;
            modeSetting = on ? "ssl=true (sslmode=verify-full)" : "sslmode=prefer";
        }
        ChannelBinding binding = parseChannelBinding(settings.getOrDefault("channelBinding", "prefer").strip());
        if (mode == Mode.DISABLE) {
            if (binding == ChannelBinding.REQUIRE) {
                throw new IllegalArgumentException("channelBinding=require needs TLS, and sslmode=disable turns it off");
            }
            return DISABLED;
        }
        if (!readFiles) {
            return new BackendTls(mode, binding, null, modeSetting, "");
        }
        String home = System.getProperty("user.home") + "/.postgresql/";
        try {
            SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(provider);
            String rootCert = "";
            if (mode == Mode.VERIFY_CA || mode == Mode.VERIFY_FULL) {
                rootCert = settings.getOrDefault("sslrootcert", home + "root.crt");
                List<X509Certificate> roots = certificates(rootCert, "sslrootcert");
                if (roots.isEmpty()) {
                    throw new IllegalArgumentException("sslrootcert " + rootCert + " holds no certificate");
                }
                builder.trustManager(roots);
            } else {
                // pgjdbc's NonValidatingTM: require, prefer and allow encrypt without checking who answers.
                builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
            }
            // Netty checks the host by default; only verify-full asks for it.
            builder.endpointIdentificationAlgorithm(mode == Mode.VERIFY_FULL ? "HTTPS" : null);
            clientKey(settings, home, builder);
            return new BackendTls(mode, binding, builder.build(), modeSetting, rootCert);
        } catch (SSLException e) {
            throw new IllegalArgumentException("the TLS settings cannot be used: " + e.getMessage(), e);
        }
    }

    private static SslProvider defaultProvider() {
        String chosen = System.getProperty(PROVIDER_PROPERTY, "");
        if (chosen.equalsIgnoreCase("jdk")) {
            return SslProvider.JDK;
        }
        if (chosen.equalsIgnoreCase("openssl")) {
            return SslProvider.OPENSSL;
        }
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    private static Mode parseMode(String value) {
        for (Mode each : Mode.values()) {
            if (each.setting().equalsIgnoreCase(value)) {
                return each;
            }
        }
        throw new IllegalArgumentException("invalid sslmode '" + value + "': expected disable, allow, prefer, require,"
                + " verify-ca or verify-full");
    }

    private static ChannelBinding parseChannelBinding(String value) {
        for (ChannelBinding each : ChannelBinding.values()) {
            if (each.name().equalsIgnoreCase(value)) {
                return each;
            }
        }
        throw new IllegalArgumentException("invalid channelBinding '" + value + "': expected disable, prefer or require");
    }

    /** The client certificate and key, as pgjdbc's LibPQFactory finds them. */
    private static void clientKey(Map<String, String> settings, String home, SslContextBuilder builder) {
        String password = settings.get("sslpassword");
        String keyFile = settings.get("sslkey");
        if (keyFile != null && !keyFile.isEmpty()) {
            String lower = keyFile.toLowerCase(Locale.ROOT);
            if (lower.endsWith(".p12") || lower.endsWith(".pfx")) {
                pkcs12(keyFile, password, builder);
                return;
            }
        }
        String certFile = settings.get("sslcert");
        boolean defaults = certFile == null && keyFile == null;
        if (certFile == null) {
            certFile = home + "postgresql.crt";
        }
        if (keyFile == null) {
            keyFile = home + "postgresql.pk8";
        }
        if (certFile.isEmpty() || keyFile.isEmpty()) {
            return; // pgjdbc: an empty setting means no client certificate
        }
        if (defaults && !Files.exists(Path.of(certFile))) {
            return; // pgjdbc's default files are used only when they are there
        }
        List<X509Certificate> chain = certificates(certFile, "sslcert");
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("sslcert " + certFile + " holds no certificate");
        }
        builder.keyManager(PrivateKeys.read(keyFile, password), chain);
    }

    private static void pkcs12(String file, String password, SslContextBuilder builder) {
        char[] secret = password == null ? new char[0] : password.toCharArray();
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(new ByteArrayInputStream(read(file, "sslkey")), secret);
            for (Enumeration<String> aliases = store.aliases(); aliases.hasMoreElements(); ) {
                String alias = aliases.nextElement();
                if (store.isKeyEntry(alias)) {
                    List<X509Certificate> chain = new ArrayList<>();
                    for (Certificate each : store.getCertificateChain(alias)) {
                        chain.add((X509Certificate) each);
                    }
                    builder.keyManager((PrivateKey) store.getKey(alias, secret), chain);
                    return;
                }
            }
            throw new IllegalArgumentException("sslkey " + file + " holds no private key");
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("sslkey " + file + " cannot be read as PKCS#12"
                    + (password == null ? " (no sslpassword given)" : " with sslpassword") + ": " + e.getMessage(), e);
        }
    }

    /**
     * The certificates of a PEM or DER file, in file order; throws {@link IllegalArgumentException}
     * naming {@code setting} and the file when it cannot be read.
     */
    public static List<X509Certificate> certificates(String file, String setting) {
        return certificates(read(file, setting), file, setting);
    }

    /** The certificates in the bytes of {@code file}, as {@link #certificates(String, String)} reads them. */
    public static List<X509Certificate> certificates(byte[] bytes, String file, String setting) {
        try {
            Collection<? extends Certificate> read = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes));
            List<X509Certificate> result = new ArrayList<>(read.size());
            for (Certificate each : read) {
                result.add((X509Certificate) each);
            }
            return result;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(setting + " " + file + " holds no readable certificate (PEM or DER): "
                    + e.getMessage(), e);
        }
    }

    static byte[] read(String file, String setting) {
        try {
            return Files.readAllBytes(Path.of(file));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(setting + " " + file + " does not exist", e);
        } catch (IOException e) {
            throw new IllegalArgumentException(setting + " " + file + " cannot be read: " + e, e);
        }
    }

    public Mode mode() {
        return mode;
    }

    public ChannelBinding channelBinding() {
        return channelBinding;
    }

    /** {@code sslmode=...} as the data source gave it, for messages. */
    String modeSetting() {
        return modeSetting;
    }

    /** A handler that starts TLS with the server at {@code host}, whose name verify-full checks. */
    SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        return context.newHandler(alloc, host, port);
    }

    /**
     * Why a TLS handshake failed, said as an operator can act on it: the server's certificate is
     * not trusted, has expired, does not name the host, or the server refused the client's
     * certificate; else the TLS library's own words.
     */
    String handshakeFailure(Throwable cause, String host) {
        String detail = innermostMessage(cause);
        for (Throwable each = cause; each != null; each = each.getCause()) {
            if (each instanceof CertificateExpiredException || each instanceof CertificateNotYetValidException) {
                return "TLS handshake failed: the server's certificate is not valid now (" + detail + ")";
            }
            if (each instanceof CertPathBuilderException || each instanceof CertPathValidatorException) {
                return "TLS handshake failed: the server's certificate is unknown: no certificate of sslrootcert "
                        + rootCert + " signed it (" + detail + ")";
            }
            String message = String.valueOf(each.getMessage());
            if (each instanceof java.security.cert.CertificateException
                    && (message.contains("No subject alternative") || message.contains("No name matching"))) {
                return "TLS handshake failed: the server's certificate does not name the host " + host
                        + " (" + modeSetting + " checks it): " + detail;
            }
            if (message.contains("certificate_required") || message.contains("CERTIFICATE_REQUIRED")) {
                return "TLS handshake failed: the server asks for a client certificate (sslcert and sslkey): " + detail;
            }
            if (message.contains("unknown_ca") || message.contains("UNKNOWN_CA")
                    || message.contains("bad_certificate") || message.contains("BAD_CERTIFICATE")) {
                return "TLS handshake failed: the server refused the client certificate of sslcert: " + detail;
            }
        }
        return "TLS handshake failed: " + detail;
    }

    private static String innermostMessage(Throwable cause) {
        String result = cause.toString();
        for (Throwable each = cause; each != null; each = each.getCause()) {
            if (each.getMessage() != null) {
                result = each.getMessage();
            }
            if (each.getCause() == each) {
                break;
            }
        }
        return result;
    }

    /**
     * The channel binding data of {@code tls-server-end-point}: the hash of the server's
     * certificate, by the hash of its signature algorithm (SHA-256 for MD5 and SHA-1), or null
     * when that algorithm names no hash this can tell.
     *
     * @see <a href="https://www.rfc-editor.org/rfc/rfc5929#section-4.1">RFC 5929, 4.1</a>
     */
    static byte[] serverEndPoint(SslHandler handler) {
        try {
            Certificate[] peer = handler.engine().getSession().getPeerCertificates();
            if (peer.length == 0 || !(peer[0] instanceof X509Certificate certificate)) {
                return null;
            }
            return endPointHash(certificate);
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    /**
     * {@code tls-server-end-point} of a certificate: its hash by the hash of its signature
     * algorithm (SHA-256 for MD5 and SHA-1), or null when that algorithm names no hash this can
     * tell. The frontend binds its own SCRAM-SHA-256-PLUS logins to its certificate with it.
     *
     * @see <a href="https://www.rfc-editor.org/rfc/rfc5929#section-4.1">RFC 5929, 4.1</a>
     */
    public static byte[] endPointHash(X509Certificate certificate) {
        try {
            String algorithm = certificate.getSigAlgName().toUpperCase(Locale.ROOT);
            String hash;
            if (algorithm.startsWith("SHA512") || algorithm.startsWith("SHA-512")) {
                hash = "SHA-512";
            } else if (algorithm.startsWith("SHA384") || algorithm.startsWith("SHA-384")) {
                hash = "SHA-384";
            } else if (algorithm.startsWith("SHA224") || algorithm.startsWith("SHA-224")) {
                hash = "SHA-224";
            } else if (algorithm.startsWith("SHA256") || algorithm.startsWith("SHA-256")
                    || algorithm.startsWith("SHA1") || algorithm.startsWith("MD5")) {
                hash = "SHA-256";
            } else {
                return null; // RSASSA-PSS, Ed25519: PostgreSQL offers no channel binding for these either
            }
            return MessageDigest.getInstance(hash).digest(certificate.getEncoded());
        } catch (GeneralSecurityException e) {
            return null;
        }
    }

    /** PEM blocks of a file: the base64 bodies between BEGIN and END lines of one label. */
    static List<byte[]> pemBlocks(String text, String label) {
        List<byte[]> result = new ArrayList<>(1);
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int at = text.indexOf(begin);
        while (at >= 0) {
            int stop = text.indexOf(end, at);
            if (stop < 0) {
                break;
            }
            String body = text.substring(at + begin.length(), stop);
            result.add(Base64.getMimeDecoder().decode(body.getBytes(StandardCharsets.US_ASCII)));
            at = text.indexOf(begin, stop);
        }
        return result;
    }
}
