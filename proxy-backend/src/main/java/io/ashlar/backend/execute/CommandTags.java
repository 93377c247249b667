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
