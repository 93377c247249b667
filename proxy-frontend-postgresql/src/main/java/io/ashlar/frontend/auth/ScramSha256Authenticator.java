package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import io.ashlar.protocol.AuthenticationSASL;
import io.ashlar.protocol.AuthenticationSASLContinue;
import io.ashlar.protocol.AuthenticationSASLFinal;
import io.ashlar.protocol.BackendMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL 14+ runs it
 * ({@code auth-scram.c}). States: {@link State#CLIENT_FIRST} after the AuthenticationSASL
 * request, {@link State#CLIENT_FINAL} after the server-first-message, {@link State#DONE}.
 * <ul>
 * <li>Offers {@code SCRAM-SHA-256}, and over TLS {@code SCRAM-SHA-256-PLUS} before it, bound to the
 * proxy's certificate by {@code tls-server-end-point} (RFC 5929), as PostgreSQL 11+ does. Over TLS
 * a client that says it could bind but thinks the server cannot ({@code y,,}) is refused, since
 * someone between them removed the {@code -PLUS} offer (RFC 5802 section 6); an authzid is
 * refused.</li>
 * <li>The user name inside the SCRAM message is ignored, as PostgreSQL does: the StartupMessage
 * said who logs in.</li>
 * <li>Server nonce: 18 random bytes in base64; salt and iterations (4096) from the user's
 * {@link ScramSecret}; the proof is checked in constant time.</li>
 * </ul>
 * A wrong proof is 28P01 {@code password authentication failed for user "x"}; a malformed message
 * is 08P01 {@code malformed SCRAM message} with PostgreSQL's detail. SCRAM text is handled as
 * ISO-8859-1 so that every byte the client sent goes unchanged into the AuthMessage.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sasl-authentication.html">SASL Authentication</a>
 * @see <a href="https://datatracker.ietf.org/doc/html/rfc5802">RFC 5802</a>
 */
public final class ScramSha256Authenticator implements Authenticator {

    public static final String MECHANISM = "SCRAM-SHA-256";
    public static final String MECHANISM_PLUS = "SCRAM-SHA-256-PLUS";
    private static final String CHANNEL_BINDING_TYPE = "tls-server-end-point";

    private static final int NONCE_BYTES = 18;
    private static final int PROOF_LENGTH = 32;

    /** What the authenticator waits for. */
    enum State { START, CLIENT_FIRST, CLIENT_FINAL, DONE }

    private final String userName;
    private final ScramSecret secret;
    /** {@code tls-server-end-point} of the proxy's certificate, empty without TLS. */
    private final byte[] certificateHash;
    private final RandomGenerator random;
    private State state = State.START;
    private boolean plus;
    private boolean awaitingInitialResponse = true;
    private String gs2Header = "";
    private String clientFirstBare = "";
    private String serverFirst = "";
    private String nonce = "";

    ScramSha256Authenticator(String userName, ScramSecret secret, RandomGenerator random) {
        this(userName, secret, new byte[0], random);
    }

    /**
     * @param certificateHash {@code tls-server-end-point} of the certificate the client's TLS session
     *        shows, which {@code SCRAM-SHA-256-PLUS} binds to; empty without TLS (no {@code -PLUS} then)
     */
    ScramSha256Authenticator(String userName, ScramSecret secret, byte[] certificateHash, RandomGenerator random) {
        this.userName = userName;
        this.secret = secret;
        this.certificateHash = certificateHash.clone();
        this.random = random;
    }

    State state() {
        return state;
    }

    @Override
    public LoginMethod method() {
        return LoginMethod.SCRAM_SHA_256;
    }

    @Override
    public BackendMessage start() {
        state = State.CLIENT_FIRST;
        return new AuthenticationSASL(overTls() ? List.of(MECHANISM_PLUS, MECHANISM) : List.of(MECHANISM));
    }

    @Override
    public AuthStep onPassword(byte[] body) {
        AuthStep result = switch (state) {
            case CLIENT_FIRST -> awaitingInitialResponse ? onInitialResponse(body) : onClientFirst(text(body));
            case CLIENT_FINAL -> onClientFinal(text(body));
            case START, DONE -> new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION,
                    "unexpected SASL response");
        };
        if (result instanceof AuthStep.Failure || result instanceof AuthStep.Success) {
            state = State.DONE;
        }
        return result;
    }

    /** SASLInitialResponse: String mechanism, Int32 length of the data or -1, data. */
    private AuthStep onInitialResponse(byte[] body) {
        awaitingInitialResponse = false;
        int nul = indexOf(body, (byte) 0);
        if (nul < 0 || body.length < nul + 1 + 4) {
            return malformedPacket();
        }
        String mechanism = new String(body, 0, nul, StandardCharsets.US_ASCII);
        plus = MECHANISM_PLUS.equals(mechanism) && overTls();
        if (!plus && !MECHANISM.equals(mechanism)) {
            return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION,
                    "client selected an invalid SASL authentication mechanism");
        }
        int at = nul + 1;
        int length = (body[at] & 0xff) << 24 | (body[at + 1] & 0xff) << 16 | (body[at + 2] & 0xff) << 8
                | (body[at + 3] & 0xff);
        at += 4;
        if (length == -1 && at == body.length) {
            return new AuthStep.Continue(new AuthenticationSASLContinue(new byte[0]));
        }
        if (length != body.length - at) {
            return malformedPacket();
        }
        return onClientFirst(new String(body, at, length, StandardCharsets.ISO_8859_1));
    }

    private AuthStep onClientFirst(String message) {
        if (message.isEmpty()) {
            return malformed("The message is empty.");
        }
        char flag = message.charAt(0);
        int authzid; // where the gs2 header's authzid field starts: after the channel-binding flag and its comma
        switch (flag) {
            case 'n', 'y' -> {
                if (plus) {
                    return malformed("The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include "
                            + "channel binding data.");
                }
                if (flag == 'y' && overTls()) {
                    return new AuthStep.Failure(AuthStep.Failure.INVALID_AUTHORIZATION, "SCRAM channel binding negotiation "
                            + "error", "The client supports SCRAM channel binding but thinks the server does not.  However,"
                            + " this server does support channel binding.");
                }
                if (message.length() < 2 || message.charAt(1) != ',') {
                    return malformed("Comma expected, but found character \"" + charAt(message, 1) + "\".");
                }
                authzid = 2;
            }
            case 'p' -> {
                if (!plus) {
                    return malformed("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message "
                            + "includes channel binding data.");
                }
                if (message.length() < 2 || message.charAt(1) != '=') {
                    return malformed("Expected attribute \"p\" but found \"" + message + "\".");
                }
                int end = message.indexOf(',');
                String type = message.substring(2, end < 0 ? message.length() : end);
                if (!CHANNEL_BINDING_TYPE.equals(type)) {
                    return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION,
                            "unsupported SCRAM channel-binding type \"" + type + "\"");
                }
                authzid = end < 0 ? message.length() : end + 1;
            }
            default -> {
                return malformed("Unexpected channel-binding flag \"" + flag + "\".");
            }
        }
        if (authzid < message.length() && message.charAt(authzid) == 'a') {
            return new AuthStep.Failure(AuthStep.Failure.FEATURE_NOT_SUPPORTED,
                    "client uses authorization identity, but it is not supported");
        }
        if (authzid >= message.length() || message.charAt(authzid) != ',') {
            return malformed("Unexpected attribute \"" + charAt(message, authzid) + "\" in client-first-message.");
        }
        gs2Header = message.substring(0, authzid + 1);
        clientFirstBare = message.substring(authzid + 1);
        if (clientFirstBare.startsWith("m=")) {
            return new AuthStep.Failure(AuthStep.Failure.FEATURE_NOT_SUPPORTED,
                    "client requires an unsupported SCRAM extension");
        }
        Attributes attributes = new Attributes(clientFirstBare);
        if (attributes.next('n').isEmpty()) {
            return malformed(attributes.error());
        }
        Optional<String> clientNonce = attributes.next('r');
        if (clientNonce.isEmpty()) {
            return malformed(attributes.error());
        }
        if (!isPrintable(clientNonce.get())) {
            return malformed("Non-printable characters in the client nonce.");
        }
        byte[] serverNonce = new byte[NONCE_BYTES];
        random.nextBytes(serverNonce);
        nonce = clientNonce.get() + Base64.getEncoder().encodeToString(serverNonce);
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(secret.salt()) + ",i="
                + secret.iterations();
        state = State.CLIENT_FINAL;
        return new AuthStep.Continue(new AuthenticationSASLContinue(serverFirst.getBytes(StandardCharsets.ISO_8859_1)));
    }

    private AuthStep onClientFinal(String message) {
        Attributes attributes = new Attributes(message);
        Optional<String> channelBinding = attributes.next('c');
        if (channelBinding.isEmpty()) {
            return malformed(attributes.error());
        }
        if (plus) {
            // The gs2 header carried no authzid (refused above), so it is exactly "p=tls-server-end-point,,".
            byte[] header = gs2Header.getBytes(StandardCharsets.ISO_8859_1);
            byte[] expected = new byte[header.length + certificateHash.length];
            System.arraycopy(header, 0, expected, 0, header.length);
            System.arraycopy(certificateHash, 0, expected, header.length, certificateHash.length);
            Optional<byte[]> binding = base64(channelBinding.get());
            if (binding.isEmpty() || !MessageDigest.isEqual(binding.get(), expected)) {
                return new AuthStep.Failure(AuthStep.Failure.INVALID_AUTHORIZATION, "SCRAM channel binding check failed");
            }
        } else if (!(channelBinding.get().equals("biws") && gs2Header.charAt(0) == 'n')
                && !(channelBinding.get().equals("eSws") && gs2Header.charAt(0) == 'y')) {
            // "biws" and "eSws" are "n,," and "y,,": the header the client-first-message opened with.
            return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION,
                    "unexpected SCRAM channel-binding attribute in client-final-message");
        }
        Optional<String> finalNonce = attributes.next('r');
        if (finalNonce.isEmpty()) {
            return malformed(attributes.error());
        }
        if (!finalNonce.get().equals(nonce)) {
            return malformed("Nonce does not match.");
        }
        int proofStart = attributes.skipTo('p');
        if (proofStart < 0) {
            return malformed(attributes.error());
        }
        Optional<String> proofText = attributes.next('p');
        if (proofText.isEmpty()) {
            return malformed(attributes.error());
        }
        if (!attributes.atEnd()) {
            return malformed("Garbage found at the end of client-final-message.");
        }
        Optional<byte[]> proof = base64(proofText.get());
        if (proof.isEmpty() || proof.get().length != PROOF_LENGTH) {
            return malformed("Malformed proof in client-final-message.");
        }
        String withoutProof = message.substring(0, proofStart - 1);
        byte[] authMessage = (clientFirstBare + ',' + serverFirst + ',' + withoutProof)
                .getBytes(StandardCharsets.ISO_8859_1);
        byte[] clientSignature = Crypto.hmacSha256(secret.storedKey(), authMessage);
        byte[] clientKey = Crypto.xor(proof.get(), clientSignature);
        if (!MessageDigest.isEqual(Crypto.sha256(clientKey), secret.storedKey())) {
            return AuthStep.Failure.passwordFailed(userName);
        }
        String serverFinal = "v=" + Base64.getEncoder().encodeToString(Crypto.hmacSha256(secret.serverKey(), authMessage));
        return new AuthStep.Success(Optional.of(AuthenticationSASLFinal.of(serverFinal)));
    }

    private boolean overTls() {
        return certificateHash.length > 0;
    }

    private static AuthStep malformed(String detail) {
        return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION, "malformed SCRAM message", detail);
    }

    private static AuthStep malformedPacket() {
        return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION, "invalid SASL authentication message");
    }

    private static String text(byte[] body) {
        return new String(body, StandardCharsets.ISO_8859_1);
    }

    private static String charAt(String value, int index) {
        return index < value.length() ? String.valueOf(value.charAt(index)) : "";
    }

    private static int indexOf(byte[] bytes, byte value) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == value) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isPrintable(String value) {
        if (value.isEmpty()) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char each = value.charAt(i);
            if (each < 0x21 || each > 0x7e || each == ',') {
                return false;
            }
        }
        return true;
    }

    private static Optional<byte[]> base64(String value) {
        try {
            return Optional.of(Base64.getDecoder().decode(value));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Reads {@code x=value} attributes separated by commas, in order, remembering why the last
     * read failed (PostgreSQL's {@code read_attr_value}).
     */
    private static final class Attributes {

        private final String message;
        private int position;
        private String error = "";

        Attributes(String message) {
            this.message = message;
        }

        Optional<String> next(char name) {
            if (position >= message.length() || message.charAt(position) != name
                    || position + 1 >= message.length() || message.charAt(position + 1) != '=') {
                error = "Expected attribute \"" + name + "\" but found \""
                        + (position < message.length() ? message.substring(position) : "") + "\".";
                return Optional.empty();
            }
            int end = message.indexOf(',', position + 2);
            if (end < 0) {
                end = message.length();
            }
            String result = message.substring(position + 2, end);
            position = Math.min(end + 1, message.length() + 1);
            return Optional.of(result);
        }

        /** Skips extension attributes up to {@code name}; returns its position or -1. */
        int skipTo(char name) {
            while (position < message.length()) {
                if (message.charAt(position) == name && position + 1 < message.length()
                        && message.charAt(position + 1) == '=') {
                    return position;
                }
                int end = message.indexOf(',', position);
                if (end < 0) {
                    break;
                }
                position = end + 1;
            }
            error = "Expected attribute \"" + name + "\" but found \"\".";
            return -1;
        }

        boolean atEnd() {
            return position >= message.length();
        }

        String error() {
            return error;
        }
    }
}
