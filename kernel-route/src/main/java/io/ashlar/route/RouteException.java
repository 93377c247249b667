package io.ashlar.route;

/**
 * A statement that cannot be routed correctly: the client gets an ERROR with this SQLSTATE (0A000
 * for a construct that cannot be answered across shards, 22023 for a sharding value no algorithm
 * accepts, ...) and a message naming the construct and the table.
 */
public final class RouteException extends RuntimeException {

    private final String sqlState;
    private final boolean plannable;

    public RouteException(String sqlState, String message) {
        this(sqlState, message, sqlState.equals("0A000"));
    }

    /**
     * @param plannable whether a read refused so could be answered by a {@link RecursivePlan} instead (0A000 because
     *        it spans shards); false for a refusal the configuration asks for
     */
    public RouteException(String sqlState, String message, boolean plannable) {
        super(message, null, false, false);
        this.sqlState = sqlState;
        this.plannable = plannable;
    }

    /** Whether the statement was refused because it spans shards: a read may then be planned recursively. */
    public boolean plannable() {
        return plannable;
    }

    public String sqlState() {
        return sqlState;
    }
}
