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
    /** The INSERT row's NULL sharding value it was refused for; or null. */
    private NullShardingValue nullShardingValue;

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

    /**
     * The 0A000 refusal of an INSERT row whose sharding column is NULL: it has no shard. Where the column is NOT NULL
     * the proxy answers PostgreSQL's 23502 instead ({@link #nullShardingValue()}).
     */
    static RouteException nullShardingValue(String table, String column) {
        RouteException result = new RouteException("0A000", "NULL in sharding column " + column + " of INSERT into sharded table "
                + table + " is not supported: a row without a sharding value has no shard");
        result.nullShardingValue = new NullShardingValue(table, column, false);
        return result;
    }

    /** As {@link #nullShardingValue(String, String)} for a row that gives the sharding column no value at all. */
    static RouteException omittedShardingValue(String table, String column) {
        RouteException result = new RouteException("0A000", "INSERT into sharded table " + table
                + " without a value for sharding column " + column + " is not supported");
        result.nullShardingValue = new NullShardingValue(table, column, true);
        return result;
    }

    /** The refused NULL sharding value, if that is why. */
    public java.util.Optional<NullShardingValue> nullShardingValue() {
        return java.util.Optional.ofNullable(nullShardingValue);
    }

    /**
     * A row's sharding column without a value: the logical table, the column, and whether the row left the column out
     * (its default would decide) rather than giving NULL.
     */
    public record NullShardingValue(String table, String column, boolean omitted) {
    }

    /** Whether the statement was refused because it spans shards: a read may then be planned recursively. */
    public boolean plannable() {
        return plannable;
    }

    public String sqlState() {
        return sqlState;
    }
}
