package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import io.ashlar.protocol.AuthenticationSHA256Password;
import io.ashlar.protocol.BackendMessage;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.random.RandomGenerator;

/**
 * openGauss's SHA256 method, what openGauss's JDBC driver does by default. The server sends the
 * user's salt, a fresh 4-byte token and (protocol 3.51) the iteration count; the client answers
 * 64 hex chars: {@code HMAC_SHA256(StoredKey, token) XOR ClientKey}. The server recovers ClientKey
 * by XOR with the same HMAC and accepts when {@code SHA256(ClientKey)} equals the stored
 * StoredKey (constant-time). A wrong password gets openGauss's own wording, 28P01
 * {@code Invalid username/password,login denied.}
 *
 * @see AuthenticationSHA256Password
 * @see <a href="https://gitee.com/opengauss/openGauss-connector-jdbc">openGauss JDBC driver</a>,
 *     {@code MD5Digest.RFC5802Algorithm}
 */
public final class OpenGaussSha256Authenticator implements Authenticator {

    static final String LOGIN_DENIED = "Invalid username/password,login denied.";

    private static final int REPLY_HEX_LENGTH = 64;

    private final OpenGaussSecret secret;
    private final boolean sendIterations;
    private final RandomGenerator random;
    private byte[] token = new byte[0];
    private boolean done;

    OpenGaussSha256Authenticator(OpenGaussSecret secret, boolean sendIterations, RandomGenerator random) {
        this.secret = secret;
        this.sendIterations = sendIterations;
        this.random = random;
    }

    @Override
    public LoginMethod method() {
        return LoginMethod.OPENGAUSS_SHA256;
    }

    @Override
    public BackendMessage start() {
        token = new byte[AuthenticationSHA256Password.TOKEN_LENGTH];
        random.nextBytes(token);
        return new AuthenticationSHA256Password(secret.salt(), token,
                sendIterations ? OptionalInt.of(secret.iterations()) : OptionalInt.empty());
    }

    @Override
    public AuthStep onPassword(byte[] body) {
        if (done || token.length == 0) {
            return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION, "unexpected password message");
        }
        done = true;
        Optional<byte[]> text = PasswordPacket.text(body);
        if (text.isEmpty() || text.get().length != REPLY_HEX_LENGTH) {
            return PasswordPacket.invalidSize();
        }
        Optional<byte[]> reply = unhex(text.get());
        if (reply.isEmpty()) {
            return new AuthStep.Failure(AuthStep.Failure.INVALID_PASSWORD, LOGIN_DENIED);
        }
        byte[] clientSignature = Crypto.hmacSha256(secret.storedKey(), token);
        byte[] clientKey = Crypto.xor(reply.get(), clientSignature);
        return MessageDigest.isEqual(Crypto.sha256(clientKey), secret.storedKey()) ? AuthStep.Success.PLAIN
                : new AuthStep.Failure(AuthStep.Failure.INVALID_PASSWORD, LOGIN_DENIED);
    }

    private static Optional<byte[]> unhex(byte[] ascii) {
        for (byte each : ascii) {
            if (!HexFormat.isHexDigit(each)) {
                return Optional.empty();
            }
        }
        byte[] result = new byte[ascii.length / 2];
        for (int i = 0; i < result.length; i++) {
            result[i] = (byte) (HexFormat.fromHexDigit(ascii[2 * i]) << 4 | HexFormat.fromHexDigit(ascii[2 * i + 1]));
        }
        return Optional.of(result);
    }
}
