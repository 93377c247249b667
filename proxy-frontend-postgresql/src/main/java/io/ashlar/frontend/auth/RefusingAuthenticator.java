package io.ashlar.frontend.auth;

import io.ashlar.protocol.BackendMessage;

/**
 * An exchange that runs as the method it wraps runs and never lets anyone in: the login of a user
 * nobody configured, or of one configured with an empty password. Its verifiers are secrets nobody
 * knows, so a right answer is out of reach anyway; this makes sure of it. The failure reads as the
 * method's own wrong-password failure.
 */
final class RefusingAuthenticator implements Authenticator {

    private final Authenticator exchange;
    private final String userName;

    RefusingAuthenticator(Authenticator exchange, String userName) {
        this.exchange = exchange;
        this.userName = userName;
    }

    @Override
    public LoginMethod method() {
        return exchange.method();
    }

    @Override
    public BackendMessage start() {
        return exchange.start();
    }

    @Override
    public AuthStep onPassword(byte[] body) {
        AuthStep result = exchange.onPassword(body);
        if (result instanceof AuthStep.Success) {
            return exchange instanceof OpenGaussSha256Authenticator
                    ? new AuthStep.Failure(AuthStep.Failure.INVALID_PASSWORD, OpenGaussSha256Authenticator.LOGIN_DENIED)
                    : AuthStep.Failure.passwordFailed(userName);
        }
        return result;
    }
}
