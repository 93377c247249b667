package io.ashlar.route;

/**
 * The values bound to a statement's parameters, as Java values the sharding algorithms take:
 * Integer, Long, BigInteger, BigDecimal, Float, Double, String, Boolean, java.time.LocalDate,
 * LocalDateTime, OffsetDateTime, LocalTime; {@code null} for SQL NULL; an {@link UnreadableValue}
 * for a value the proxy could not read with certainty. The proxy reads the client's text or binary
 * values by the type PostgreSQL gives each parameter (declared in Parse, or inferred by the
 * backend), as PostgreSQL's input and receive functions read them.
 */
public interface RouteParameters {

    RouteParameters NONE = new RouteParameters() {
        @Override
        public int count() {
            return 0;
        }

        @Override
        public Object value(int index) {
            throw new IndexOutOfBoundsException("no parameters");
        }
    };

    int count();

    /** The value of parameter {@code index} (0-based: {@code $1} is 0). */
    Object value(int index);

    /**
     * Whether parameter {@code index} has a known SQL type (declared, or inferred by the backend), so that a
     * String value is text that PostgreSQL compares and stores as the string it is. False for text of unknown type,
     * which PostgreSQL converts to the type of the column it meets: {@code '41'} may then be the integer 41 or the
     * text "41", and the router considers both.
     */
    default boolean typed(int index) {
        return false;
    }

    /**
     * Whether the values are stand-ins for values not bound yet: a Describe routes the statement only to learn its
     * shape from one representative node, and an INSERT row it cannot place goes to the first node.
     */
    default boolean placeholders() {
        return false;
    }
}
