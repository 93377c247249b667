package io.ashlar.route;

/**
 * A statement that cannot be routed correctly: the client gets an ERROR with this SQLSTATE (0A000
 * for a construct that cannot be answered across shards, 22023 for a sharding value no algorithm
 * accepts, ...) and a message naming the construct and the table.
 */
public final class RouteException extends RuntimeException {

    private final String sqlState;
    private final boolean plannable;
    /** The foreign key refused because its rows may be on different data sources, which the proxy may enforce itself; or null. */
    private final io.ashlar.parser.statement.ForeignKey crossShardKey;

    public RouteException(String sqlState, String message) {
        this(sqlState, message, sqlState.equals("0A000"));
    }

    /**
     * @param plannable whether a read refused so could be answered by a {@link RecursivePlan} instead (0A000 because
     *        it spans shards); false for a refusal the configuration asks for
     */
    public RouteException(String sqlState, String message, boolean plannable) {
        this(sqlState, message, plannable, null);
    }

    /**
     * A 0A000 refusal of a foreign key whose rows may lie on different data sources: per-shard constraints cannot
     * enforce it, the proxy can (ALTER TABLE ... ADD [CONSTRAINT] FOREIGN KEY).
     */
    RouteException(String message, io.ashlar.parser.statement.ForeignKey crossShardKey) {
        this("0A000", message, false, crossShardKey);
    }

    private RouteException(String sqlState, String message, boolean plannable, io.ashlar.parser.statement.ForeignKey crossShardKey) {
        super(message, null, false, false);
        this.sqlState = sqlState;
        this.plannable = plannable;
        this.crossShardKey = crossShardKey;
    }

    /** The foreign key refused because its rows may be on different data sources (the proxy may enforce it), if that is why. */
    public java.util.Optional<io.ashlar.parser.statement.ForeignKey> crossShardKey() {
        return java.util.Optional.ofNullable(crossShardKey);
    }

    /** Whether the statement was refused because it spans shards: a read may then be planned recursively. */
    public boolean plannable() {
        return plannable;
    }

    public String sqlState() {
        return sqlState;
    }
}
