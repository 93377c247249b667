package io.ashlar.bootstrap.sharding;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * One entry of a differential corpus file: a statement with what decides how its answers are compared, or a
 * directive of the harness ({@code \reset}, {@code \contents t_order t_order_item}).
 *
 * @param file the corpus file's name
 * @param line the line the entry starts on
 * @param section the last {@code -- ## title} above the entry
 * @param kind statement or directive
 * @param text the statement (without its final semicolon), or the directive's argument
 * @param order how rows are compared
 * @param orderColumns for {@link Order#ORDERED_BY}: the 1-based columns whose sequence ORDER BY fixes
 * @param refusal whether the proxy may or must refuse the statement
 * @param refusalWords for {@link Refusal#REQUIRED}: words the refusal's message must contain (case-insensitive)
 * @param parameters bind values; the statement is then prepared
 */
record CorpusEntry(String file, int line, String section, Kind kind, String text, Order order, List<Integer> orderColumns,
        Refusal refusal, List<String> refusalWords, List<Parameter> parameters) {

    enum Kind {
        STATEMENT,
        /** {@code \reset}: start the following entries from the base data, on fresh connections. */
        RESET,
        /** {@code \contents t1 t2}: the shards, read directly, hold the reference's rows of those tables where the rules say. */
        CONTENTS
    }

    enum Order {
        /** The statement's ORDER BY (if any) does not fix the row order: rows are compared as multisets. */
        UNORDERED,
        /** {@code -- @ordered}: ORDER BY fixes the order of whole rows: rows are compared as lists. */
        ORDERED,
        /**
         * {@code -- @ordered 2,3}: ORDER BY fixes the sequence of those columns' values, and rows tied on them may come in
         * any order: that sequence is compared as a list, the rows as a multiset.
         */
        ORDERED_BY,
        /** {@code -- @rowcount}: only the columns and the number of rows are compared (LIMIT without ORDER BY). */
        ROW_COUNT
    }

    enum Refusal {
        /** The proxy must answer as PostgreSQL does. */
        NONE,
        /**
         * {@code -- @may-refuse}: a construct the proxy may either answer exactly as PostgreSQL does, or refuse with
         * SQLSTATE 0A000 (issue 3: "never a wrong answer"). A refusal aborts the test with the proxy's message.
         */
        ALLOWED,
        /** {@code -- @refused word...}: the proxy must refuse with 0A000 and a message naming the construct and table. */
        REQUIRED
    }

    /** A bind value: {@code int:3}, {@code long:7}, {@code text:abc}, {@code numeric:1.50}, {@code null:int}. */
    record Parameter(String type, String value) {

        static Parameter parse(String spec) {
            int colon = spec.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("parameter '" + spec + "' is not type:value");
            }
            return new Parameter(spec.substring(0, colon).strip(), spec.substring(colon + 1));
        }

        void bind(PreparedStatement statement, int index) throws SQLException {
            switch (type) {
                case "int" -> statement.setInt(index, Integer.parseInt(value));
                case "long" -> statement.setLong(index, Long.parseLong(value));
                case "text" -> statement.setString(index, value);
                case "numeric" -> statement.setBigDecimal(index, new BigDecimal(value));
                case "null" -> statement.setNull(index, switch (value) {
                    case "int" -> Types.INTEGER;
                    case "long" -> Types.BIGINT;
                    case "text" -> Types.VARCHAR;
                    default -> throw new IllegalArgumentException("null of unknown type " + value);
                });
                default -> throw new IllegalArgumentException("unknown parameter type " + type);
            }
        }

        @Override
        public String toString() {
            return type + ":" + value;
        }
    }

    /** What a test report shows for the entry: file, line, section and the statement on one line. */
    String displayName() {
        String shown = switch (kind) {
            case STATEMENT -> ShardedDatabases.abbreviate(text) + (parameters.isEmpty() ? "" : "  " + parameters);
            case RESET -> "\\reset";
            case CONTENTS -> "\\contents " + text;
        };
        return file + ":" + line + " [" + section + "] " + shown;
    }
}
