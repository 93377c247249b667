package io.ashlar.protocol;

/**
 * Which protocol a client speaks, told by the version in its startup packet: PostgreSQL v3
 * (3.0, or a newer 3.x minor that is negotiated down to 3.0 with NegotiateProtocolVersion), or
 * openGauss, whose JDBC driver sends 3.51 (and older ones 3.50) and expects openGauss's own
 * SHA256 authentication and batch bind ({@code U}) message.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-VERSIONS">Protocol Versions</a>
 */
public enum ClientDialect {

    POSTGRESQL,

    /** openGauss protocol 3.50: the SHA256 request carries no iteration count (2048 implied). */
    OPENGAUSS_3_50,

    /** openGauss protocol 3.51: the SHA256 request carries its iteration count. */
    OPENGAUSS_3_51;

    public static final int PROTOCOL_3_0 = 3 << 16;
    public static final int PROTOCOL_OPENGAUSS_3_50 = (3 << 16) | 50;
    public static final int PROTOCOL_OPENGAUSS_3_51 = (3 << 16) | 51;

    public boolean isOpenGauss() {
        return this != POSTGRESQL;
    }

    /** The dialect of a 3.x protocol version. */
    public static ClientDialect of(int protocolVersion) {
        return switch (protocolVersion) {
            case PROTOCOL_OPENGAUSS_3_50 -> OPENGAUSS_3_50;
            case PROTOCOL_OPENGAUSS_3_51 -> OPENGAUSS_3_51;
            default -> POSTGRESQL;
        };
    }
}
