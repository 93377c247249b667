package io.ashlar.frontend.auth;

import io.ashlar.protocol.AuthenticationCleartextPassword;
import io.ashlar.protocol.BackendMessage;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * PostgreSQL's {@code password} method: the client sends its password in clear text (only
 * sensible over TLS, or on a trusted network; {@code proxy-frontend-ssl-required} makes sure).
 * Compared in constant time with the configured password's UTF-8 bytes.
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">Password Authentication</a>
 */
public final class CleartextPasswordAuthenticator implements Authenticator {

    private final String userName;
    private final byte[] password;
    private boolean started;
    private boolean done;

    CleartextPasswordAuthenticator(String userName, byte[] password) {
        this.userName = userName;
        this.password = password;
    }

    @Override
    public LoginMethod method() {
        return LoginMethod.PASSWORD;
    }

    @Override
    public BackendMessage start() {
        started = true;
        return AuthenticationCleartextPassword.INSTANCE;
    }

    @Override
    public AuthStep onPassword(byte[] body) {
        if (done || !started) {
            return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION, "unexpected password message");
        }
        done = true;
        Optional<byte[]> response = PasswordPacket.text(body);
        if (response.isEmpty()) {
            return PasswordPacket.invalidSize();
        }
        return MessageDigest.isEqual(password, response.get()) ? AuthStep.Success.PLAIN
                : AuthStep.Failure.passwordFailed(userName);
    }
}
