package io.ashlar.backend.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class SessionSettingsTest {

    @Test
    void applySqlQuotesValuesAndResetsFirstWhenAsked() {
        SessionSettings s = new SessionSettings(new String[] {"search_path", "application_name"},
                new String[] {"\"$user\", public", "it's"});
        assertEquals("SELECT pg_catalog.set_config('search_path', '\"$user\", public', false), "
                + "pg_catalog.set_config('application_name', 'it''s', false)", s.applySql(false));
        assertEquals("SET SESSION AUTHORIZATION DEFAULT;RESET ROLE;RESET ALL;SELECT pg_catalog.set_config('search_path', '\"$user\", public', false), "
                + "pg_catalog.set_config('application_name', 'it''s', false)", s.applySql(true));
        assertEquals("SET SESSION AUTHORIZATION DEFAULT;RESET ROLE;RESET ALL;", SessionSettings.EMPTY.applySql(true));
    }

    @Test
    void equalSettingsAreEqualWhateverTheInstance() {
        SessionSettings a = new SessionSettings(new String[] {"TimeZone"}, new String[] {"UTC"});
        SessionSettings b = new SessionSettings(new String[] {"TimeZone"}, new String[] {"UTC"});
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, new SessionSettings(new String[] {"TimeZone"}, new String[] {"Europe/Paris"}));
        assertNotEquals(a, SessionSettings.EMPTY);
    }
}
