package io.ashlar.route;

/**
 * A statement that cannot be routed correctly: the client gets an ERROR with this SQLSTATE (0A000
 * for a construct that cannot be answered across shards, 22023 for a sharding value no algorithm
 * accepts, ...) and a message naming the construct and the table.
 */
public final class RouteException extends RuntimeException {

    private final String sqlState;

    public RouteException(String sqlState, String message) {
        super(message, null, false, false);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }
}
