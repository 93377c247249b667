package io.ashlar.backend.execute;

/**
 * What a backend's command tag says about the session: whether the statement changed settings
 * that later statements on other connections must see, or created state that only its own
 * backend connection has.
 */
public final class CommandTags {

    /** What a statement did to the session, as its tag tells. */
    public enum Effect { NONE, SETTINGS, SESSION_STATE }

    private CommandTags() {
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
                if (tag.startsWith("DISCARD")) {
                    return Effect.SETTINGS;
                }
                return tag.equals("DECLARE CURSOR") ? Effect.SESSION_STATE : Effect.NONE;
            case 'P':
                return tag.equals("PREPARE") ? Effect.SESSION_STATE : Effect.NONE;
            case 'L':
                return tag.equals("LISTEN") || tag.equals("LOAD") ? Effect.SESSION_STATE : Effect.NONE;
            default:
                return Effect.NONE;
        }
    }
}
