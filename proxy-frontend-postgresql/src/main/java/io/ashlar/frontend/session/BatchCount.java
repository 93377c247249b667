package io.ashlar.frontend.session;

/**
 * The command tag of a whole batch bind: the tags of its rows ({@code INSERT 0 1},
 * {@code UPDATE 2}, ...) summed into one ({@code INSERT 0 1000}), which is what openGauss answers
 * to a {@code U} message and what its JDBC driver reports as the batch's first update count.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COMMANDCOMPLETE">CommandComplete</a>
 */
final class BatchCount {

    /** The tag up to its count ({@code "INSERT 0 "}), once a row reported one. */
    private String prefix = "";
    /** A tag without a count ({@code CREATE TABLE}), when no row reported a count. */
    private String plain = "";
    private long total;

    /** Adds one row's tag. */
    void add(String tag) {
        int space = tag.lastIndexOf(' ');
        long rows = space < 0 || space == tag.length() - 1 ? -1 : 0;
        for (int i = space + 1; i < tag.length() && rows >= 0; i++) {
            char c = tag.charAt(i);
            rows = c >= '0' && c <= '9' ? rows * 10 + (c - '0') : -1;
        }
        if (rows < 0) {
            if (plain.isEmpty()) {
                plain = tag;
            }
            return;
        }
        if (prefix.isEmpty()) {
            prefix = tag.substring(0, space + 1);
        }
        total += rows;
    }

    /**
     * The summed tag; for a batch of no rows, the tag the statement's first word implies
     * ({@code INSERT 0 0}, {@code UPDATE 0}).
     */
    String tag(String sql) {
        if (!prefix.isEmpty()) {
            return prefix + total;
        }
        if (!plain.isEmpty()) {
            return plain;
        }
        String verb = firstWord(sql);
        return verb.equals("INSERT") ? "INSERT 0 0" : verb + " 0";
    }

    private static String firstWord(String sql) {
        int start = 0;
        while (start < sql.length() && !Character.isLetter(sql.charAt(start))) {
            start++;
        }
        int end = start;
        while (end < sql.length() && Character.isLetter(sql.charAt(end))) {
            end++;
        }
        return sql.substring(start, end).toUpperCase(java.util.Locale.ROOT);
    }
}
