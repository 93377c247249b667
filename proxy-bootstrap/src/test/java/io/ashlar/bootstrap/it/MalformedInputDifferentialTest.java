package io.ashlar.bootstrap.it;

import static io.ashlar.bootstrap.it.RawConnection.concat;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same malformed and out-of-order client bytes ({@link MalformedCorpus}: hand-written cases and
 * cases generated from a seed) sent after login to PostgreSQL itself, to a pooled database
 * (RelaySession) and to a sharded one (FrontendSession): the answers must be the same. An answer
 * is the sequence of replies as message types, with severity and SQLSTATE for errors and notices
 * and the transaction status of ReadyForQuery, then how the connection ends: a probe sent behind
 * the case ({@code Sync}, then {@code ROLLBACK; SELECT 'probe'}) answers (the session is usable),
 * or the connection is closed.
 *
 * <p>Differences that are deliberate are listed in {@link #DELIBERATE} with the reason; any other
 * fails the test, printing the case's bytes. The corpus is the hand-written cases and
 * {@code ashlar.malformedCases} (400) generated from {@code ashlar.malformedSeed} (13): case i of a
 * seed is always the same bytes. Replay a failing case by its name, which holds its seed and index:
 * {@code -Dashlar.malformedSeed=7 -Dashlar.malformedCase="generated 7/90:"}; try more with another seed
 * and count ({@code -Dashlar.malformedSeed=8 -Dashlar.malformedCases=5000}).
 */
final class MalformedInputDifferentialTest {

    private static final long SEED = Long.getLong("ashlar.malformedSeed", 13L);
    private static final int GENERATED = Integer.getInteger("ashlar.malformedCases", 400);
    /** Runs only the cases whose name contains this ({@code -Dashlar.malformedCase="generated 13/42:"}). */
    private static final String ONLY = System.getProperty("ashlar.malformedCase", "");
    private static final String DIRECT_DATABASE = "malformed_direct";
    private static final String TABLE = "CREATE TABLE t_og (id int PRIMARY KEY, name text)";
    private static final byte[] PROBE = concat(RawConnection.sync(), RawConnection.query("ROLLBACK; SELECT 'probe' AS probe"));

    private enum Target { POSTGRESQL, POOLED, SHARDED }

    /** How a session answered a case. */
    private record Outcome(List<String> replies, String end) {
        @Override
        public String toString() {
            return String.join(" ", replies) + " | " + end;
        }
    }

    /**
     * A difference Ashlar means: which side, when it applies (the case and PostgreSQL's and Ashlar's
     * outcomes), and why.
     */
    private record Deliberate(Target target, BiPredicate<MalformedCorpus.Case, Outcome[]> applies, String reason) {
    }

    private static final List<Deliberate> DELIBERATE = List.of(
            new Deliberate(null, (c, o) -> o[0].end().equals("closed") && o[1].end().equals("closed")
                    && o[1].replies().equals(plus(o[0].replies(), "E FATAL 08P01")),
                    "a message length below 4 or over its type's cap: PostgreSQL logs 'invalid message length' and"
                            + " closes without a word (COMMERROR); Ashlar tells the client why before it closes"),
            new Deliberate(Target.SHARDED, (c, o) -> c.name().equals(MalformedCorpus.FAILING_UNNAMED_PARSE),
                    "a sharded database answers an unnamed statement's Parse at once and checks the statement when"
                            + " it first runs (a round trip saved per statement): its error comes at Bind or Execute"),
            new Deliberate(Target.SHARDED, (c, o) -> onlyAs25P02(o, "42601", false),
                    "in a transaction block that failed, a Parse with a syntax error gets 25P02 where PostgreSQL reads"
                            + " the grammar first (42601): Ashlar's analyzer does not judge grammar, and the data sources,"
                            + " inside the failed transaction, answer 25P02 to anything"),
            new Deliberate(Target.POOLED, (c, o) -> onlyAs25P02(o, null, true),
                    "in a transaction block that failed, an error the pooler raises itself (a statement it knows is"
                            + " missing, a name it knows is taken) goes through the data source, which answers 25P02"),
            new Deliberate(Target.SHARDED, (c, o) -> onlyAs(o, "I", "E ERROR 34000"),
                    "a Bind that PostgreSQL refuses once it has made its portal (a value that does not read) leaves"
                            + " an empty portal, whose Execute PostgreSQL answers with EmptyQueryResponse; Ashlar makes"
                            + " no portal for a refused Bind, and its Execute gets 34000"),
            new Deliberate(Target.SHARDED, MalformedInputDifferentialTest::binaryValueReadLater,
                    "a binary value of a parameter whose type the client did not declare, of a statement not"
                            + " described yet, is read by the data source when the statement runs, not at Bind"));

    /**
     * Whether Ashlar's outcome is PostgreSQL's but for one pipeline whose Bind PostgreSQL refused for
     * a binary value's length (08P01 or 22P03) and Ashlar bound: from there to the pipeline's
     * ReadyForQuery the two may differ.
     */
    private static boolean binaryValueReadLater(MalformedCorpus.Case each, Outcome[] outcomes) {
        List<String> want = outcomes[0].replies();
        List<String> got = outcomes[1].replies();
        int i = 0;
        while (i < want.size() && i < got.size() && want.get(i).equals(got.get(i))) {
            i++;
        }
        if (i == want.size() || i == got.size() || !got.get(i).equals("2")
                || !(want.get(i).equals("E ERROR 08P01") || want.get(i).equals("E ERROR 22P03"))) {
            return false;
        }
        int wantEnd = i;
        while (wantEnd < want.size() && !want.get(wantEnd).startsWith("Z")) {
            wantEnd++;
        }
        int gotEnd = i;
        while (gotEnd < got.size() && !got.get(gotEnd).startsWith("Z")) {
            gotEnd++;
        }
        return outcomes[0].end().equals(outcomes[1].end())
                && want.subList(wantEnd, want.size()).equals(got.subList(gotEnd, got.size()));
    }

    /** Whether Ashlar's outcome is PostgreSQL's but for {@code actual} replies where PostgreSQL sent {@code expected}. */
    private static boolean onlyAs(Outcome[] outcomes, String expected, String actual) {
        List<String> want = outcomes[0].replies();
        List<String> got = outcomes[1].replies();
        if (want.size() != got.size() || !outcomes[0].end().equals(outcomes[1].end())) {
            return false;
        }
        for (int i = 0; i < want.size(); i++) {
            if (!want.get(i).equals(got.get(i)) && !(want.get(i).equals(expected) && got.get(i).equals(actual))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether Ashlar's outcome is PostgreSQL's but for errors answered 25P02 where PostgreSQL sent
     * {@code code} (any code when null), each after the session's transaction block failed when
     * {@code afterFailedBlock}.
     */
    private static boolean onlyAs25P02(Outcome[] outcomes, String code, boolean afterFailedBlock) {
        List<String> expected = outcomes[0].replies();
        List<String> actual = outcomes[1].replies();
        if (expected.size() != actual.size() || !outcomes[0].end().equals(outcomes[1].end())) {
            return false;
        }
        boolean failedBlock = false;
        for (int i = 0; i < expected.size(); i++) {
            String want = expected.get(i);
            String got = actual.get(i);
            if (!want.equals(got) && !(got.equals("E ERROR 25P02") && want.startsWith("E ERROR ")
                    && (code == null || want.equals("E ERROR " + code)) && (failedBlock || !afterFailedBlock))) {
                return false;
            }
            failedBlock = got.equals("ZE") || failedBlock && !got.startsWith("Z");
        }
        return true;
    }

    private static List<String> plus(List<String> replies, String last) {
        List<String> result = new ArrayList<>(replies);
        result.add(last);
        return result;
    }

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded(true);
        try (Connection c = server.backend(ProxiedPostgres.BACKEND_DATABASE); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + DIRECT_DATABASE);
            s.execute(TABLE);
        }
        try (Connection c = server.backend(DIRECT_DATABASE); Statement s = c.createStatement()) {
            s.execute(TABLE);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static RawConnection connect(Target target) throws IOException {
        RawConnection result;
        if (target == Target.POSTGRESQL) {
            result = new RawConnection(server.backendPort());
            result.logIn(ProxiedPostgres.BACKEND_USER, DIRECT_DATABASE, "");
        } else {
            result = new RawConnection(server.proxyPort());
            result.logIn(ProxiedPostgres.PASSWORD_USER, target == Target.POOLED ? ProxiedPostgres.POOLED_DATABASE
                    : ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
        }
        result.readTimeout(5_000);
        return result;
    }

    /** Sends the case and the probe in one write and reads the answers up to the probe's, or the end. */
    private static Outcome run(Target target, MalformedCorpus.Case each) throws IOException {
        List<String> replies = new ArrayList<>();
        try (RawConnection connection = connect(target)) {
            connection.send(concat(each.bytes(), PROBE));
            boolean probeAnswering = false;
            while (true) {
                RawConnection.Message m;
                try {
                    m = connection.read();
                } catch (EOFException e) {
                    return new Outcome(replies, "closed in the middle of a message");
                } catch (SocketTimeoutException e) {
                    return new Outcome(replies, "no answer");
                }
                if (m == null) {
                    return new Outcome(replies, "closed");
                }
                if (m.type() == 'T' && WireTraceTest.render(m).startsWith("T [probe(")) {
                    probeAnswering = true;
                }
                if (probeAnswering) {
                    if (m.type() == 'Z') {
                        return new Outcome(replies, "usable");
                    }
                    continue;
                }
                switch (m.type()) {
                    case 'S', 'K' -> { }
                    case 'E', 'N' -> {
                        Map<Character, String> fields = m.fields();
                        replies.add(m.type() + " " + fields.get('S') + " " + fields.get('C'));
                    }
                    case 'Z' -> replies.add("Z" + (char) m.body()[0]);
                    default -> replies.add(String.valueOf(m.type()));
                }
            }
        }
    }

    @Test
    void corpusIsAnsweredAsPostgresqlAnswersIt() throws IOException {
        List<MalformedCorpus.Case> cases = new ArrayList<>(MalformedCorpus.handWritten());
        cases.addAll(MalformedCorpus.generated(SEED, GENERATED));
        List<String> unexpected = new ArrayList<>();
        int deliberate = 0;
        cases.removeIf(each -> !each.name().contains(ONLY));
        for (MalformedCorpus.Case each : cases) {
            Outcome expected = run(Target.POSTGRESQL, each);
            for (Target target : new Target[] {Target.POOLED, Target.SHARDED}) {
                Outcome actual = run(target, each);
                if (actual.equals(expected)) {
                    continue;
                }
                Deliberate reason = deliberate(target, each, expected, actual);
                if (reason != null) {
                    deliberate++;
                    continue;
                }
                unexpected.add(each.name() + " [" + target + "]\n  bytes:      " + HexFormat.of().formatHex(each.bytes())
                        + "\n  PostgreSQL: " + expected + "\n  Ashlar:     " + actual);
            }
        }
        if (!unexpected.isEmpty()) {
            fail(unexpected.size() + " of " + cases.size() + " cases answered otherwise than PostgreSQL (seed " + SEED + "):\n"
                    + String.join("\n", unexpected));
        }
        assertTrue(!ONLY.isEmpty() || cases.size() > 400, "the corpus runs");
        System.out.println(cases.size() + " cases, " + deliberate + " deliberate differences");
    }

    private static Deliberate deliberate(Target target, MalformedCorpus.Case each, Outcome expected, Outcome actual) {
        for (Deliberate d : DELIBERATE) {
            if ((d.target() == null || d.target() == target) && d.applies().test(each, new Outcome[] {expected, actual})) {
                return d;
            }
        }
        return null;
    }
}
