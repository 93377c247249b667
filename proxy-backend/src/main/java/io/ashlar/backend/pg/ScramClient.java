package io.ashlar.backend.pg;

import io.ashlar.protocol.auth.Crypto;
import io.ashlar.protocol.auth.SaslPrep;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The client side of SCRAM-SHA-256, as libpq runs it: client-first {@code n,,n=,r=nonce}, then the
 * proof over the server's salt and iteration count, then a check of the server's signature (a
 * server that cannot prove it knows the password is refused). Over TLS it binds the exchange to
 * the server's certificate (SCRAM-SHA-256-PLUS, {@code p=tls-server-end-point}): a server that
 * relays another's TLS session cannot pass the check; and it says {@code y} when it could bind
 * but the server offered no PLUS, so that a server that did and was stripped of it refuses.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sasl-authentication.html">SASL Authentication</a>
 * @see <a href="https://www.rfc-editor.org/rfc/rfc5802">RFC 5802</a>
 */
final class ScramClient {

    static final String MECHANISM = "SCRAM-SHA-256";
    static final String MECHANISM_PLUS = "SCRAM-SHA-256-PLUS";
    private static final SecureRandom RANDOM = new SecureRandom();
    /** No channel binding: the client does not support it (no TLS, or channelBinding=disable). */
    static final String NO_BINDING = "n,,";
    /** The client supports channel binding and believes the server does not. */
    static final String BINDING_NOT_OFFERED = "y,,";
    /** tls-server-end-point binding, with SCRAM-SHA-256-PLUS. */
    static final String SERVER_END_POINT = "p=tls-server-end-point,,";

    private static final int MAX_SALTED = 256;
    /** Salted passwords already derived (never changed once put; read on login only). */
    private static final java.util.concurrent.ConcurrentHashMap<String, byte[]> SALTED =
            new java.util.concurrent.ConcurrentHashMap<>();

    private final String password;
    private final String gs2Header;
    private final byte[] bindingData;
    private final String clientNonce;
    private String clientFirstBare;
    private byte[] serverSignature;

    /**
     * @param gs2Header {@link #NO_BINDING}, {@link #BINDING_NOT_OFFERED} or {@link #SERVER_END_POINT}
     * @param bindingData the server's certificate hash with {@link #SERVER_END_POINT}, else empty
     */
    ScramClient(String password, String gs2Header, byte[] bindingData) {
        this.password = password;
        this.gs2Header = gs2Header;
        this.bindingData = bindingData;
        byte[] nonce = new byte[18];
        RANDOM.nextBytes(nonce);
        this.clientNonce = Base64.getEncoder().encodeToString(nonce);
    }

    /** The client-first-message. */
    byte[] first() {
        clientFirstBare = "n=,r=" + clientNonce;
        return (gs2Header + clientFirstBare).getBytes(StandardCharsets.UTF_8);
    }

    /** The client-final-message answering the server-first-message; throws on a malformed or forged one. */
    byte[] answer(byte[] serverFirstBytes) {
        String serverFirst = new String(serverFirstBytes, StandardCharsets.UTF_8);
        String nonce = attribute(serverFirst, 'r');
        String salt = attribute(serverFirst, 's');
        String iterations = attribute(serverFirst, 'i');
        if (nonce == null || salt == null || iterations == null || !nonce.startsWith(clientNonce)) {
            throw new IllegalStateException("malformed SCRAM server-first-message");
        }
        byte[] saltedPassword = saltedPassword(password, salt, Integer.parseInt(iterations));
        byte[] header = gs2Header.getBytes(StandardCharsets.UTF_8);
        byte[] binding = java.util.Arrays.copyOf(header, header.length + bindingData.length);
        System.arraycopy(bindingData, 0, binding, header.length, bindingData.length);
        String withoutProof = "c=" + Base64.getEncoder().encodeToString(binding) + ",r=" + nonce;
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] clientKey = Crypto.hmacSha256(saltedPassword, "Client Key");
        byte[] storedKey = Crypto.sha256(clientKey);
        byte[] proof = Crypto.xor(clientKey, Crypto.hmacSha256(storedKey, authMessage));
        serverSignature = Crypto.hmacSha256(Crypto.hmacSha256(saltedPassword, "Server Key"), authMessage);
        return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * PBKDF2 of the password over the server's salt: thousands of HMACs (4,096 by PostgreSQL's
     * default), milliseconds on the event loop that logs the connection in. A data source's server
     * keeps one salt per role, so every new connection of a pool would derive the same key again:
     * it is derived once per password, salt and iteration count (as pgbouncer keeps its SCRAM keys).
     */
    private static byte[] saltedPassword(String password, String salt, int iterations) {
        String key = iterations + ":" + salt + ":" + password;
        byte[] result = SALTED.get(key);
        if (result == null) {
            result = Crypto.pbkdf2("PBKDF2WithHmacSHA256", SaslPrep.prepare(password), Base64.getDecoder().decode(salt),
                    iterations);
            if (SALTED.size() >= MAX_SALTED) {
                SALTED.clear();
            }
            SALTED.put(key, result);
        }
        return result;
    }

    /** Whether this exchange is SCRAM-SHA-256-PLUS, bound to the TLS channel. */
    boolean bindsChannel() {
        return gs2Header.equals(SERVER_END_POINT);
    }

    /** Whether the server-final-message proves the server knows the password. */
    boolean verify(byte[] serverFinalBytes) {
        String serverFinal = new String(serverFinalBytes, StandardCharsets.UTF_8);
        String verifier = attribute(serverFinal, 'v');
        return verifier != null && serverSignature != null
                && MessageDigest.isEqual(Base64.getDecoder().decode(verifier), serverSignature);
    }

    private static String attribute(String message, char name) {
        for (String part : message.split(",")) {
            if (part.length() >= 2 && part.charAt(0) == name && part.charAt(1) == '=') {
                return part.substring(2);
            }
        }
        return null;
    }
}
