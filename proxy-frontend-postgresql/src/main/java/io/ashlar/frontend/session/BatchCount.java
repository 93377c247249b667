package io.ashlar.frontend.session;

import io.ashlar.backend.execute.CommandTags;

/**
 * The command tag of a whole batch bind: the tags of its rows ({@code INSERT 0 1},
 * {@code UPDATE 2}, ...) summed into one ({@code INSERT 0 1000}, by {@link CommandTags.Sum}), which is
 * what openGauss answers to a {@code U} message and what its JDBC driver reports as the batch's
 * first update count; a batch of no rows gets the tag its statement's first word implies.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COMMANDCOMPLETE">CommandComplete</a>
 */
final class BatchCount {

    private final CommandTags.Sum sum = new CommandTags.Sum();

    /** Adds one row's tag. */
    void add(String tag) {
        sum.add(tag);
    }

    /**
     * The summed tag; for a batch of no rows, the tag the statement's first word implies
     * ({@code INSERT 0 0}, {@code UPDATE 0}).
     */
    String tag(String sql) {
        String result = sum.tag();
        if (!result.isEmpty()) {
            return result;
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
