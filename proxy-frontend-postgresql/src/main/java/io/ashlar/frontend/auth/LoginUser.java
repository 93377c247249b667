package io.ashlar.frontend.auth;

import java.util.Objects;

/**
 * What the proxy knows of a user at login: how to check its password, whether it may log in
 * without TLS, and which logical databases it may connect to.
 *
 * @param verifiers the user's password verifiers (verifiers that let nobody in for an unknown user)
 * @param tlsRequired whether a connection without TLS is refused before any password is asked for
 * @param databases the logical databases it may connect to
 * @param admin whether it may run the proxy's admin commands (server.yaml's {@code admin: true})
 */
public record LoginUser(PasswordVerifiers verifiers, boolean tlsRequired, DatabaseGrants databases, boolean admin) {

    public LoginUser {
        Objects.requireNonNull(verifiers, "verifiers");
        Objects.requireNonNull(databases, "databases");
    }

    /** A user who is no admin. */
    public LoginUser(PasswordVerifiers verifiers, boolean tlsRequired, DatabaseGrants databases) {
        this(verifiers, tlsRequired, databases, false);
    }
}
