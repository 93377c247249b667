package io.ashlar.frontend.auth;

import io.ashlar.protocol.BackendMessage;

/**
 * The server side of one login, as a small state machine with no Netty inside: {@link #start()}
 * gives the authentication request to send after the StartupMessage, then every
 * PasswordMessage body goes to {@link #onPassword(byte[])} until it answers
 * {@link AuthStep.Success} or {@link AuthStep.Failure}. One instance per login, used by one
 * thread at a time; made by {@link Authenticators}.
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">Password Authentication</a>
 */
public sealed interface Authenticator
        permits ScramSha256Authenticator, Md5Authenticator, CleartextPasswordAuthenticator,
        OpenGaussSha256Authenticator, RefusingAuthenticator {

    /** The exchange this is. */
    LoginMethod method();

    /** The authentication request to send first. */
    BackendMessage start();

    /** Interprets the body of a PasswordMessage ({@code 'p'}) that answers the last request. */
    AuthStep onPassword(byte[] body);
}
