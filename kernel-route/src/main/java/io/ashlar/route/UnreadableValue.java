package io.ashlar.route;

/**
 * A bound parameter value the proxy could not read with certainty: bytes that are not a valid
 * binary value of the parameter's type, text its type's input function would not take as Ashlar
 * reads it, or a type Ashlar cannot read. The router never guesses its shard: a condition on it
 * does not narrow a read (every candidate node answers, and PostgreSQL compares the value as it
 * reads it), and an INSERT row that needs it to pick a node is refused with {@link #sqlState()}.
 *
 * <p>Equal only to itself: two parameters that both could not be read are not provably equal.
 * Made only on the failure path; a value that reads costs nothing of this.
 */
public final class UnreadableValue {

    private final String sqlState;

    private final String reason;

    /**
     * @param sqlState the SQLSTATE of refusing a write routed by this value (22P03 for bytes that are not a binary
     *                 value of the type, 22P02 for text that is not one, 0A000 for a type Ashlar cannot read)
     * @param reason   what is wrong, worded to follow "the value of parameter $n" ({@code "is 3 bytes, but a
     *                 binary int4 is 4"})
     */
    public UnreadableValue(String sqlState, String reason) {
        this.sqlState = sqlState;
        this.reason = reason;
    }

    public String sqlState() {
        return sqlState;
    }

    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "<unreadable: " + reason + ">";
    }
}
