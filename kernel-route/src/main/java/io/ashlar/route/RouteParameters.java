package io.ashlar.route;

/**
 * The values bound to a statement's parameters, as Java values the sharding algorithms take:
 * Integer, Long, BigInteger, BigDecimal, Double, String, Boolean, java.time.LocalDate,
 * LocalDateTime, OffsetDateTime, LocalTime, byte[]; {@code null} for SQL NULL. The proxy converts
 * the client's text or binary values by their type OID (text of an unspecified type stays a
 * String, which numeric algorithms accept).
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
}
