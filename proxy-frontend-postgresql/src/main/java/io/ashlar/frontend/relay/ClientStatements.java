package io.ashlar.frontend.relay;

import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.pg.ServerLink;
import io.ashlar.frontend.relay.ExpectedAnswers.Expect;
import io.ashlar.frontend.relay.ExpectedAnswers.Kind;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.Close;
import io.ashlar.protocol.Describe;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.Parse;
import java.util.HashMap;
import java.util.Map;

/**
 * The statements a {@link RelaySession}'s client prepared, under the client's names, and the names
 * they run under on the held connection: each named statement prepared under a name of the
 * proxy's own on whatever connection runs it (once per connection, and shared by sessions that
 * prepare the same text), and the unnamed statement parsed again on a connection other than the
 * one it was parsed on. The Parses and Closes this sends are awaited in the session's
 * {@link ExpectedAnswers}.
 */
final class ClientStatements {

    /**
     * A statement the client prepared (Parse), as the session keeps it; with the expectations of
     * its Bind and Describe made once, which name the connection's statement (a stale plan retires it).
     */
    record ClientStatement(Parse parse, ServerLink.PreparedKey key, CommandTags.Effect effect, boolean temporary,
                           Expect bindExpect, Expect describeExpect) {
        ClientStatement(Parse parse, ServerLink.PreparedKey key, CommandTags.Effect effect, boolean temporary) {
            this(parse, key, effect, temporary, new Expect(Kind.BIND, true, key, null),
                    new Expect(Kind.DESCRIBE_STATEMENT, true, key, null));
        }
    }

    private final ExpectedAnswers expected;
    private final Map<String, ClientStatement> named = new HashMap<>();
    private ClientStatement unnamed;
    /** The connection the unnamed statement was last parsed on. */
    private ServerLink unnamedOn;

    ClientStatements(ExpectedAnswers expected) {
        this.expected = expected;
    }

    /** The client's statement named {@code name} (not empty), or null. */
    ClientStatement named(String name) {
        return named.get(name);
    }

    /** The client's unnamed statement, or null. */
    ClientStatement unnamed() {
        return unnamed;
    }

    /**
     * A client's Parse, sent on {@code link}: the unnamed statement as it came, a named one under
     * a name of the proxy's.
     *
     * @return false, with nothing sent, where the client has a statement of that name already
     */
    boolean parse(Parse parse, ServerLink link) {
        String name = parse.statementName();
        ClientStatement statement = new ClientStatement(parse, new ServerLink.PreparedKey(parse.sql(), parse.parameterTypeOids()),
                CommandTags.textEffect(parse.sql()), CommandTags.mentionsTemporary(parse.sql()));
        if (name.isEmpty()) {
            ClientStatement replaced = unnamedOn == link ? unnamed : null;
            unnamed = statement;
            unnamedOn = link;
            RelaySession.send(link, parse);
            expected.add(new Expect(Kind.PARSE, true, null, null, "", statement, replaced));
            return true;
        }
        if (named.containsKey(name)) {
            return false;
        }
        named.put(name, statement);
        // Prepared again even when the connection has the text prepared (for a Bind of another
        // session): PostgreSQL plans a Parse against the tables as they are now, and DDL since may
        // have changed the statement's result.
        link.retire(statement.key());
        prepare(statement, true, name, link);
        return true;
    }

    /** Prepares a statement on {@code link} under a name of the proxy's; its ParseComplete goes to the client or not. */
    private String prepare(ClientStatement statement, boolean relay, String clientName, ServerLink link) {
        Map.Entry<ServerLink.PreparedKey, String> eldest = link.eldestPrepared();
        if (eldest != null) {
            link.forget(eldest.getKey());
            RelaySession.send(link, new Close((byte) 'S', eldest.getValue()));
            expected.add(Expect.CLOSE_SILENT);
        }
        for (String retired = link.pollRetired(); retired != null; retired = link.pollRetired()) {
            RelaySession.send(link, new Close((byte) 'S', retired));
            expected.add(Expect.CLOSE_SILENT);
        }
        String result = link.remember(statement.key());
        Parse parse = statement.parse();
        RelaySession.send(link, new Parse(result, parse.sql(), parse.parameterTypeOids()));
        expected.add(new Expect(Kind.PARSE, relay, statement.key(), null, clientName));
        return result;
    }

    /** The server-side name of a client's statement on {@code link}, preparing it there first if needed. */
    String serverName(String clientName, ServerLink link) {
        if (clientName.isEmpty()) {
            if (unnamed != null && unnamedOn != link) {
                // Parsed on another connection, or on this one before another session had it: parse it again, before
                // the message that uses it.
                RelaySession.send(link, unnamed.parse());
                expected.add(new Expect(Kind.PARSE, false, null, null));
                unnamedOn = link;
            } else if (unnamed == null) {
                // The session has none (its Parse failed, a simple query or Close dropped it): the connection's may be
                // another session's, which must not run; closed, the backend answers as PostgreSQL does (26000).
                RelaySession.send(link, new Close((byte) 'S', ""));
                expected.add(Expect.CLOSE_SILENT);
            }
            return "";
        }
        ClientStatement statement = named.get(clientName);
        if (statement == null) {
            // Unknown here: the backend answers as PostgreSQL does (prepared statement "x" does not exist),
            // or runs the statement a SQL PREPARE of this session made on its connection.
            return clientName;
        }
        String result = link.prepared(statement.key());
        return result != null ? result : prepare(statement, false, null, link);
    }

    /**
     * The client closed its statement {@code name} (not empty): the connection keeps it prepared
     * for whoever runs the same text; the session forgets it.
     *
     * @return false where the session has no statement of that name
     */
    boolean close(String name) {
        return named.remove(name) != null;
    }

    /** The unnamed statement is gone (closed, or replaced by a simple query), as PostgreSQL drops it. */
    void dropUnnamed() {
        unnamed = null;
        unnamedOn = null;
    }

    /**
     * The client's unnamed statement may be gone from the connection it was parsed on (the proxy's own replaced it, or
     * the connection went back to the pool, where other sessions parse theirs): it is parsed again before its next use.
     */
    void unnamedReplaced() {
        unnamedOn = null;
    }

    /**
     * The backend dropped every prepared statement (DISCARD ALL, DEALLOCATE ALL): the connection's
     * and the session's; with {@code unnamedToo} the unnamed statement as well.
     */
    void allDeallocated(ServerLink link, boolean unnamedToo) {
        link.forgetAllPrepared();
        named.clear();
        if (unnamedToo) {
            unnamed = null;
        }
    }

    /**
     * An answer the backend skipped, or failed ({@code failed}: the first one dropped after an
     * error) on {@code link}: a Parse among them prepared nothing.
     */
    void dropped(Expect dropped, boolean failed, ServerLink link) {
        if (dropped.clientName != null && dropped.clientName.isEmpty()) {
            // PostgreSQL drops the unnamed statement as a Parse of it starts: a failed one leaves
            // none, a skipped one leaves the one before (unless a later Parse replaced it since).
            if (unnamed == dropped.parsedUnnamed) {
                unnamed = failed ? null : dropped.replacedUnnamed;
                unnamedOn = unnamed == null ? null : link;
            }
        } else if (dropped.clientName != null) {
            named.remove(dropped.clientName); // a failed or skipped Parse prepared nothing
        }
        if (dropped.kind == Kind.PARSE && dropped.key != null) {
            link.forget(dropped.key);
        }
    }

    /**
     * Whether {@code message} waits for the answers to the Parses before it: the session's view of
     * its statements is the one it would have if they succeed, and a Parse the backend skipped (after
     * an error before it) or refused must not decide the answer. Only where that matters and is
     * rare: a Parse of a name being prepared, and the unnamed statement used after a Sync that
     * followed its Parse (in one pipeline segment, a skipped Parse and what uses it are skipped alike).
     */
    boolean waitsForParses(FrontendMessage message) {
        return switch (message) {
            case Parse p -> !p.statementName().isEmpty() && named.containsKey(p.statementName())
                    && expected.parsePending(p.statementName(), false);
            case Bind b -> b.statement().isEmpty() && unnamed != null && expected.parsePending("", true);
            case Describe d -> d.kind() == 'S' && d.name().isEmpty() && unnamed != null && expected.parsePending("", true);
            default -> false;
        };
    }
}
