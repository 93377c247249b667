package io.ashlar.frontend.server;

import com.sun.management.UnixOperatingSystemMXBean;
import io.ashlar.frontend.auth.AuthenticationMethod;
import java.lang.management.ManagementFactory;
import java.util.Objects;

/**
 * The rules at the proxy's door, read once at start: how many clients may be connected, how long
 * one may take to log in, how long a failed login waits before its answer, whether TLS is required,
 * and how a user nobody configured is asked for its password.
 *
 * @param maxConnections most client connections at once, logged in or not (past it: 53300)
 * @param authenticationTimeoutMillis how long a connection may take from its first byte to its
 *        login (PostgreSQL's {@code authentication_timeout}); past it the connection is closed
 * @param authDelayMillis how long the answer to a wrong password waits (PostgreSQL's
 *        {@code auth_delay.milliseconds}), 0 for none
 * @param tlsRequired whether every login must come over TLS
 * @param unknownUserMethod the exchange a user nobody configured goes through: the method of users
 *        who name none, so that the request does not tell whether the user exists
 */
public record FrontendPolicy(int maxConnections, long authenticationTimeoutMillis, long authDelayMillis,
                             boolean tlsRequired, AuthenticationMethod unknownUserMethod) {

    /** PostgreSQL's {@code authentication_timeout} default: one minute. */
    public static final long DEFAULT_AUTHENTICATION_TIMEOUT_MILLIS = 60_000;

    /** The most clients the proxy accepts by default, whatever its open-file limit. */
    public static final int DEFAULT_MAX_CONNECTIONS_CAP = 10_000;

    public FrontendPolicy {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
        }
        if (authenticationTimeoutMillis < 1) {
            throw new IllegalArgumentException("authenticationTimeoutMillis must be positive, got " + authenticationTimeoutMillis);
        }
        if (authDelayMillis < 0) {
            throw new IllegalArgumentException("authDelayMillis must not be negative, got " + authDelayMillis);
        }
        Objects.requireNonNull(unknownUserMethod, "unknownUserMethod");
    }

    /**
     * The connection limit when the configuration sets none: half the process's open-file limit,
     * at most {@value #DEFAULT_MAX_CONNECTIONS_CAP}. Every client holds a descriptor from its first
     * byte, logged in or not; the other half stays for what the proxy cannot do without (its
     * backend connections, the JVM's jars and epoll descriptors, the log), so that clients who never
     * log in cannot make it fail to open a backend connection or to accept at all (an accept loop
     * at EMFILE spins and refuses everyone alike). The cap keeps the memory of idle connections
     * bounded too; a deployment with more clients than that says so.
     *
     * @param openFileLimit the process's limit on open files, or a negative value when unknown
     */
    public static int defaultMaxConnections(long openFileLimit) {
        if (openFileLimit <= 0) {
            return DEFAULT_MAX_CONNECTIONS_CAP;
        }
        return (int) Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS_CAP, openFileLimit / 2));
    }

    /** This process's limit on open files (the JVM raises the soft limit to the hard one), or -1 when unknown. */
    public static long openFileLimit() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount() : -1;
    }
}
