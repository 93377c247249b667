package io.ashlar.frontend.relay;

import io.ashlar.backend.pg.ServerLink;
import io.ashlar.backend.session.SessionSettings;
import io.ashlar.backend.session.SettingsTracker;
import io.ashlar.frontend.relay.ExpectedAnswers.Expect;
import io.ashlar.protocol.ParameterStatus;
import io.ashlar.protocol.Query;
import io.netty.buffer.ByteBuf;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link RelaySession}'s settings kept in step across the connections it borrows: given to each
 * connection first, read back from the backend when a statement changed them (and startup values a
 * RESET took away set again), and reported to the client (ParameterStatus) only when a value
 * differs from what it was told. The proxy's own statements this sends are awaited in the
 * session's {@link ExpectedAnswers}, answered to nobody.
 */
final class SettingsSync {

    private final SessionSettings startupSettings;
    private final ExpectedAnswers expected;
    private final ClientOutput output;
    private final Map<String, String> reported = new HashMap<>();
    private String loginUser = "";
    private SessionSettings settings;
    /** DataRows of a settings read-back. */
    private final List<String[]> readBackRows = new ArrayList<>();
    /** A statement changed the session's settings since they were last read back. */
    private boolean changed;
    /** Whether the backend reported parameters since the client was last told. */
    private boolean parametersSeen;

    /**
     * @param startupSettings what the client's startup packet set, given to every connection the session uses
     */
    SettingsSync(SessionSettings startupSettings, ExpectedAnswers expected, ClientOutput output) {
        this.startupSettings = startupSettings;
        this.settings = startupSettings;
        this.expected = expected;
        this.output = output;
    }

    /** Remembers a value the client was told at login, so that later changes are reported once. */
    void reported(String name, String value) {
        reported.put(name, value);
        if (name.equals("session_authorization")) {
            loginUser = value;
        }
    }

    /** The user the client logged in as. */
    String loginUser() {
        return loginUser;
    }

    /** The session's settings given to {@code link}, just borrowed, where it has others. */
    void give(ServerLink link) {
        if (link.settings() != settings && !link.settings().equals(settings)) {
            String sql = settings.applySql(!link.settings().isEmpty());
            if (!sql.isEmpty()) {
                // The proxy's own text (settings a client gave as Unicode): in the connection's encoding.
                link.write(new Query(sql), link.textCharset());
                expected.add(Expect.SILENT);
            }
            link.settings(settings);
        }
    }

    /** The backend reported a parameter (ParameterStatus): the client is told at its next {@link #report}, if it changed. */
    void parameterSeen() {
        parametersSeen = true;
    }

    /** A statement changed the session's settings: they are read back at the end of its transaction. */
    void markChanged() {
        changed = true;
    }

    /** Whether a statement changed the session's settings since they were last read back. */
    boolean isChanged() {
        return changed;
    }

    /** Reads the session's settings back from {@code link}. */
    void readBack(ServerLink link) {
        changed = false;
        RelaySession.send(link, new Query(SettingsTracker.READ_SETTINGS_SQL));
        expected.add(Expect.READ_BACK);
        link.flush();
    }

    /** A DataRow of the read-back, whose body starts at {@code body}. */
    void readBackRow(ByteBuf buf, int body, Charset charset) {
        readBackRows.add(row(buf, body, charset));
    }

    /**
     * The read-back is over: its rows are the session's settings now (and {@code link}'s), and
     * startup values a RESET took away are set again.
     *
     * @param draining the session has ended and only its connection's return waits: the rows are dropped
     */
    void readBackDone(ServerLink link, boolean draining) {
        if (draining) {
            readBackRows.clear();
            return;
        }
        SettingsTracker.ReadBack result = SettingsTracker.readBack(readBackRows, startupSettings, link.loginUser());
        readBackRows.clear();
        settings = result.settings();
        link.settings(settings);
        if (result.restoreSql() != null) {
            link.write(new Query(result.restoreSql()), link.textCharset());
            expected.add(Expect.SILENT);
            link.flush();
        }
    }

    private static String[] row(ByteBuf buf, int body, Charset charset) {
        int count = buf.getUnsignedShort(body);
        String[] result = new String[count];
        int at = body + 2;
        for (int i = 0; i < count; i++) {
            int length = buf.getInt(at);
            at += 4;
            if (length >= 0) {
                result[i] = buf.toString(at, length, charset);
                at += length;
            }
        }
        return result;
    }

    /** Tells the client of the parameters {@code link} reported that changed since it was told (ParameterStatus). */
    void report(ServerLink link) {
        if (!parametersSeen) {
            return;
        }
        parametersSeen = false;
        for (Map.Entry<String, String> e : link.parameters().entrySet()) {
            String name = e.getKey();
            String value = e.getValue();
            switch (name) {
                case "server_version", "server_encoding" -> {
                    continue;
                }
                case "session_authorization" -> {
                    if (value.equals(link.loginUser())) {
                        value = loginUser; // the backend's login user stands for the proxy user
                    }
                }
                default -> { }
            }
            String before = reported.put(name, value);
            if (before == null || !before.equals(value)) {
                output.write(new ParameterStatus(name, value));
            }
        }
    }
}
