package io.ashlar.frontend.server;

import com.sun.management.UnixOperatingSystemMXBean;
import io.ashlar.frontend.auth.AuthenticationMethod;
import io.ashlar.protocol.MessageMemory;
import java.lang.management.ManagementFactory;
import java.util.Objects;

/**
 * The rules at the proxy's door, read once at start: how many clients may be connected, how long
 * one may take to log in, how long a failed login waits before its answer, whether TLS is required,
 * how a user nobody configured is asked for its password, and how much memory clients' messages
 * may take ({@link MessageMemory}).
 *
 * @param maxConnections most client connections at once, logged in or not (past it: 53300)
 * @param authenticationTimeoutMillis how long a connection may take from its first byte to its
 *        login (PostgreSQL's {@code authentication_timeout}); past it the connection is closed
 * @param authDelayMillis how long the answer to a wrong password waits (PostgreSQL's
 *        {@code auth_delay.milliseconds}), 0 for none
 * @param tlsRequired whether every login must come over TLS
 * @param unknownUserMethod the exchange a user nobody configured goes through: the method of users
 *        who name none, so that the request does not tell whether the user exists
 * @param maxMessageBytes the most bytes one client message may hold: a statement's memory budget,
 *        {@code proxy-statement-memory-limit} (past it: 53200)
 * @param messageMemoryBytes the most bytes all clients' large messages may hold at once (past it: 53200)
 */
public record FrontendPolicy(int maxConnections, long authenticationTimeoutMillis, long authDelayMillis,
                             boolean tlsRequired, AuthenticationMethod unknownUserMethod, long maxMessageBytes,
                             long messageMemoryBytes) {

    /** PostgreSQL's {@code authentication_timeout} default: one minute. */
    public static final long DEFAULT_AUTHENTICATION_TIMEOUT_MILLIS = 60_000;

    /** The most clients the proxy accepts by default, whatever its open-file limit. */
    public static final int DEFAULT_MAX_CONNECTIONS_CAP = 10_000;

    /** The default most bytes of one client message: a statement's default memory budget, 256 MiB. */
    public static final long DEFAULT_MAX_MESSAGE_BYTES = 256L << 20;

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
        if (maxMessageBytes < MessageMemory.COUNTED_FROM || messageMemoryBytes < MessageMemory.COUNTED_FROM) {
            throw new IllegalArgumentException("message limits must be at least " + MessageMemory.COUNTED_FROM
                    + " bytes, got " + maxMessageBytes + " and " + messageMemoryBytes);
        }
    }

    /** The rules with the default limits on messages. */
    public FrontendPolicy(int maxConnections, long authenticationTimeoutMillis, long authDelayMillis, boolean tlsRequired,
                          AuthenticationMethod unknownUserMethod) {
        this(maxConnections, authenticationTimeoutMillis, authDelayMillis, tlsRequired, unknownUserMethod,
                DEFAULT_MAX_MESSAGE_BYTES, defaultMessageMemory(Runtime.getRuntime().maxMemory(), DEFAULT_MAX_MESSAGE_BYTES));
    }

    /**
     * How much all clients' large messages may hold at once: an eighth of the heap (256 MiB with
     * bin/ashlar's 2 GB), at least one message of the largest size. A message costs about three
     * times its size while it passes (its bytes as received, the text decoded from them, the copy
     * written to a data source), half of it on the heap.
     */
    public static long defaultMessageMemory(long maxHeap, long maxMessageBytes) {
        return Math.max(maxMessageBytes, maxHeap / 8);
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
