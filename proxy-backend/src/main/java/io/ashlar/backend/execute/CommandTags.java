package io.ashlar.backend.execute;

/**
 * What a backend's command tag says: the rows it counts ({@code INSERT 0 3}, {@code UPDATE 7},
 * {@code SELECT 5}, {@code COPY 2}), summed when the proxy answers for several statements or shards
 * as one; and what it says about the session: whether the statement changed settings that later
 * statements on other connections must see, or created state that only its own backend connection
 * has.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COMMANDCOMPLETE">CommandComplete</a>
 */
public final class CommandTags {

    /** What a statement did to the session, as its tag tells. */
    public enum Effect { NONE, SETTINGS, SESSION_STATE }

    private CommandTags() {
    }

    /** The row count a tag ends with ({@code INSERT 0 3}: 3), or -1 when it has none ({@code BEGIN}, {@code CREATE TABLE}). */
    public static long rowCount(String tag) {
        int space = tag.lastIndexOf(' ');
        if (space < 0 || space == tag.length() - 1) {
            return -1;
        }
        long result = 0;
        for (int i = space + 1; i < tag.length(); i++) {
            char c = tag.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            result = result * 10 + (c - '0');
        }
        return result;
    }

    /** The tag with another row count ({@code SELECT 5} and 2: {@code SELECT 2}); a tag without a count as it is. */
    public static String withRowCount(String tag, long rows) {
        int space = tag.lastIndexOf(' ');
        return space < 0 ? tag : tag.substring(0, space + 1) + rows;
    }

    /**
     * The tags of several statements, or of one statement's units on several shards, summed into
     * the tag of the whole: the words of the first tag that counts rows, with the total
     * ({@code INSERT 0 1} and {@code INSERT 0 3}: {@code INSERT 0 4}); without any count, the first tag.
     */
    public static final class Sum {

        /** The tag up to its count ({@code "INSERT 0 "}), once a tag had one. */
        private String prefix = "";
        /** A tag without a count ({@code CREATE TABLE}), when no tag had a count. */
        private String plain = "";
        private long total;

        /** Adds one tag. */
        public void add(String tag) {
            long rows = rowCount(tag);
            if (rows < 0) {
                if (plain.isEmpty()) {
                    plain = tag;
                }
                return;
            }
            if (prefix.isEmpty()) {
                prefix = tag.substring(0, tag.lastIndexOf(' ') + 1);
            }
            total += rows;
        }

        /** Whether a tag added had a count. */
        public boolean counted() {
            return !prefix.isEmpty();
        }

        /** The summed tag; the first tag without a count when none had one; empty when nothing was added. */
        public String tag() {
            return counted() ? prefix + total : plain;
        }
    }

    /**
     * Whether a statement's opening words mention TEMP/TEMPORARY (CREATE TEMP TABLE, SELECT ...
     * INTO TEMP): the object it makes lives only on its backend connection.
     */
    public static boolean mentionsTemporary(String sql) {
        int limit = Math.min(sql.length(), 64);
        for (int i = 0; i + 4 <= limit; i++) {
            char c = sql.charAt(i);
            if ((c == 't' || c == 'T') && sql.regionMatches(true, i, "temp", 0, 4)) {
                return true;
            }
        }
        return false;
    }

    /**
     * What a statement's text says about the session beyond its tag: a call of {@code set_config}
     * (in a SELECT, as pg_dump's scripts and many frameworks send it) changes settings without a
     * SET tag, and a session-level advisory lock ({@code pg_advisory_lock}, {@code
     * pg_try_advisory_lock}, their {@code _shared} forms) stays with the backend connection until
     * it is unlocked. The scan is conservative: a name inside a string or a comment costs one
     * read-back of the settings, or keeps the connection with the session, and nothing else.
     */
    public static Effect textEffect(String sql) {
        Effect result = Effect.NONE;
        for (int i = 0, n = sql.length() - 10; i <= n; i++) {
            // Both names have an underscore at a fixed place: most texts are ruled out without a region compare.
            char c = sql.charAt(i);
            if ((c == 'p' || c == 'P') && sql.charAt(i + 2) == '_' && (sql.regionMatches(true, i, "pg_advisory_lock", 0, 16)
                    || sql.regionMatches(true, i, "pg_try_advisory_lock", 0, 20))) {
                return Effect.SESSION_STATE;
            }
            if ((c == 's' || c == 'S') && sql.charAt(i + 3) == '_' && sql.regionMatches(true, i, "set_config", 0, 10)) {
                result = Effect.SETTINGS;
            }
        }
        return result;
    }

    /** The stronger of two effects: state bound to the connection outweighs settings. */
    public static Effect combine(Effect a, Effect b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    public static Effect effect(String tag) {
        if (tag.isEmpty()) {
            return Effect.NONE;
        }
        switch (tag.charAt(0)) {
            case 'S':
                return tag.equals("SET") ? Effect.SETTINGS : Effect.NONE;
            case 'R':
                return tag.equals("RESET") ? Effect.SETTINGS : Effect.NONE;
            case 'D':
                if (tag.startsWith("DISCARD") || tag.equals("DO")) {
                    return Effect.SETTINGS;
                }
                return tag.equals("DECLARE CURSOR") ? Effect.SESSION_STATE : Effect.NONE;
            case 'P':
                return tag.equals("PREPARE") ? Effect.SESSION_STATE : Effect.NONE;
            case 'C':
                // A procedure may change settings (set_config) as it runs.
                return tag.equals("CALL") ? Effect.SETTINGS : Effect.NONE;
            case 'L':
                return tag.equals("LISTEN") || tag.equals("LOAD") ? Effect.SESSION_STATE : Effect.NONE;
            default:
                return Effect.NONE;
        }
    }
}
