package io.ashlar.bootstrap.it;

import static io.ashlar.bootstrap.it.RawConnection.cString;
import static io.ashlar.bootstrap.it.RawConnection.concat;
import static io.ashlar.bootstrap.it.RawConnection.message;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Client byte sequences sent after login, each a case of malformed or out-of-order input: a
 * hand-written list (each named after what it tries) and cases generated from a seed by mutating
 * valid pipelines, so that any case can be replayed from its seed and index. The generated ones
 * keep the framing whole (every length matches its body) but in a few cases that break it on
 * purpose, so that the server never waits for bytes that do not come.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">Message Formats</a>
 */
final class MalformedCorpus {

    /** One case: a name that says what it tries, and the bytes. */
    record Case(String name, byte[] bytes) {
    }

    private MalformedCorpus() {
    }

    // ------------------------------------------------------------------ message builders

    static byte[] int16(int value) {
        return ByteBuffer.allocate(2).putShort((short) value).array();
    }

    static byte[] int32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    static byte[] parse(String name, String sql, int... types) {
        return RawConnection.parse(name, sql, types);
    }

    /** Bind with explicit format codes, values (null: SQL NULL) and result formats. */
    static byte[] bind(String portal, String statement, int[] formats, byte[][] values, int[] resultFormats) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(cString(portal));
        body.writeBytes(cString(statement));
        body.writeBytes(int16(formats.length));
        for (int each : formats) {
            body.writeBytes(int16(each));
        }
        body.writeBytes(int16(values.length));
        for (byte[] each : values) {
            body.writeBytes(int32(each == null ? -1 : each.length));
            if (each != null) {
                body.writeBytes(each);
            }
        }
        body.writeBytes(int16(resultFormats.length));
        for (int each : resultFormats) {
            body.writeBytes(int16(each));
        }
        return message('B', body.toByteArray());
    }

    static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] describe(char kind, String name) {
        return RawConnection.describe(kind, name);
    }

    static byte[] execute(String portal, int maxRows) {
        return RawConnection.execute(portal, maxRows);
    }

    static byte[] close(char kind, String name) {
        return RawConnection.close(kind, name);
    }

    static byte[] sync() {
        return RawConnection.sync();
    }

    static byte[] flush() {
        return RawConnection.flush();
    }

    static byte[] query(String sql) {
        return RawConnection.query(sql);
    }

    /** A message with its body cut by {@code cut} bytes, its length telling the truth. */
    static byte[] truncated(byte[] message, int cut) {
        byte[] body = Arrays.copyOfRange(message, 5, Math.max(5, message.length - cut));
        return message((char) message[0], body);
    }

    /** A message with bytes added after its body, its length telling the truth. */
    static byte[] padded(byte[] message, byte... extra) {
        return message((char) message[0], concat(Arrays.copyOfRange(message, 5, message.length), extra));
    }

    // ------------------------------------------------------------------ the hand-written cases

    /**
     * A statement that fails at Parse, so that what follows is skipped up to Sync. Named: a sharded
     * database checks an unnamed statement at its first run instead (see the test's deliberate
     * differences), a named one at Parse, as PostgreSQL does.
     */
    private static final byte[] FAILING_PARSE = parse("bad", "SELEC 1");

    /** The name of the hand-written case of an unnamed statement that fails at Parse. */
    static final String FAILING_UNNAMED_PARSE = "unnamed statement that fails at Parse";

    static List<Case> handWritten() {
        List<Case> result = new ArrayList<>();
        // Broken framing: FATAL, or (a bad length) PostgreSQL closes without a word.
        result.add(new Case("unknown message type", message('x', new byte[0])));
        result.add(new Case("message type zero", message((char) 0, new byte[0])));
        result.add(new Case("length below four", new byte[] {'Q', 0, 0, 0, 3}));
        result.add(new Case("Sync longer than a small message may be", new byte[] {'S', 0, 0x10, 0, 0}));
        result.add(new Case("PasswordMessage after login", message('p', cString("secret"))));
        result.add(new Case("unknown type after an error before Sync", concat(FAILING_PARSE, message('x', new byte[0]))));
        result.add(new Case("bad length after an error before Sync", concat(FAILING_PARSE, new byte[] {'B', 0, 0, 0, 1})));
        // Bodies that do not read: ERROR 08P01 at their place, and the session goes on.
        result.add(new Case("Query without its terminator", message('Q', text("SELECT 1"))));
        result.add(new Case("Query with bytes after its terminator", padded(query("SELECT 1"), (byte) 'x')));
        // Text that is not UTF-8 (the session's encoding): ERROR 22021 at its place; a sharded session reads statements
        // itself, and must refuse them as PostgreSQL does rather than run them with the bytes replaced.
        result.add(new Case("Query with a byte that is not UTF-8", message('Q', concat(text("SELECT 'caf"),
                new byte[] {(byte) 0xE9}, text("' AS x"), new byte[] {0}))));
        result.add(new Case("Query ending in half a UTF-8 character", message('Q', concat(text("SELECT 'x"),
                new byte[] {(byte) 0xC3}, new byte[] {0}))));
        result.add(new Case("Parse of SQL that is not UTF-8", concat(message('P', concat(cString(""), text("SELECT '"),
                new byte[] {(byte) 0xFF, (byte) 0xFE}, text("'"), new byte[] {0}, int16(0))), bind("", "", new int[0], new byte[0][],
                new int[0]), execute("", 0), sync())));
        result.add(new Case("Parse name without terminator", concat(message('P', text("stmt")), sync())));
        result.add(new Case("Parse claiming two types, one there", concat(truncated(parse("", "SELECT $1", 23, 23), 4), sync())));
        result.add(new Case("Parse with bytes left", concat(padded(parse("", "SELECT 1"), (byte) 1), sync())));
        result.add(new Case("Bind value longer than the message", concat(parse("", "SELECT $1::int"),
                truncated(bind("", "", new int[0], new byte[][] {text("1234")}, new int[0]), 4), execute("", 0), sync())));
        result.add(new Case("Bind value length -2", concat(parse("", "SELECT $1::int"),
                message('B', concat(cString(""), cString(""), int16(0), int16(1), int32(-2), int16(0))), sync())));
        result.add(new Case("Bind two formats for three values", concat(parse("", "SELECT $1::int, $2::int, $3::int"),
                bind("", "", new int[] {0, 0}, new byte[][] {text("1"), text("2"), text("3")}, new int[0]), sync())));
        result.add(new Case("Bind announcing five formats, none there", concat(parse("", "SELECT 1"),
                message('B', concat(cString(""), cString(""), int16(5))), execute("", 0), sync())));
        for (int code : new int[] {2, 7, 32, -1}) {
            result.add(new Case("Bind parameter format code " + code, concat(parse("", "SELECT $1::int"),
                    bind("", "", new int[] {code}, new byte[][] {text("7")}, new int[0]), execute("", 0), sync())));
        }
        result.add(new Case("Bind format code 2 for the second of two values", concat(parse("", "SELECT $1::int, $2::int"),
                bind("", "", new int[] {0, 2}, new byte[][] {text("1"), text("2")}, new int[0]), execute("", 0), sync())));
        result.add(new Case("Bind format code 2 and no values", concat(parse("", "SELECT 1"),
                bind("", "", new int[] {2}, new byte[0][], new int[0]), execute("", 0), sync())));
        result.add(new Case("Bind result format code 2, rows", concat(parse("", "SELECT 1"),
                bind("", "", new int[0], new byte[0][], new int[] {2}), describe('P', ""), execute("", 0), sync())));
        result.add(new Case("Bind result format code 2, no rows", concat(parse("", "SELECT 1 WHERE false"),
                bind("", "", new int[0], new byte[0][], new int[] {2}), execute("", 0), sync())));
        result.add(new Case("Bind two result formats for one column", concat(parse("", "SELECT 1"),
                bind("", "", new int[0], new byte[0][], new int[] {0, 0}), execute("", 0), sync())));
        result.add(new Case("Bind supplying two values to a statement of one", concat(parse("s", "SELECT $1::int"),
                bind("", "s", new int[0], new byte[][] {text("1"), text("2")}, new int[0]), sync())));
        result.add(new Case("Bind of a missing unnamed statement", concat(
                bind("", "", new int[0], new byte[0][], new int[0]), sync())));
        result.add(new Case("Bind of a missing named statement", concat(
                bind("", "nowhere", new int[0], new byte[0][], new int[0]), sync())));
        result.add(new Case("Bind to a named portal twice", concat(parse("", "SELECT 1"),
                bind("p", "", new int[0], new byte[0][], new int[0]), bind("p", "", new int[0], new byte[0][], new int[0]),
                sync())));
        result.add(new Case("Describe subtype X", concat(message('D', concat(new byte[] {'X'}, cString(""))), sync())));
        result.add(new Case("Close subtype x", concat(message('C', concat(new byte[] {'x'}, cString(""))), sync())));
        result.add(new Case("Execute without its row limit", concat(parse("", "SELECT 1"),
                bind("", "", new int[0], new byte[0][], new int[0]), message('E', cString("")), sync())));
        result.add(new Case("Sync with a body", message('S', new byte[] {1})));
        result.add(new Case("Flush with a body", concat(message('H', new byte[] {1}), sync())));
        result.add(new Case("CopyData, CopyDone and CopyFail outside a COPY", concat(message('d', text("1\tx\n")),
                message('c', new byte[] {9}), message('f', text("no terminator")), sync())));
        result.add(new Case("Terminate with a body", message('X', new byte[] {1, 2})));
        // After an error in a pipeline: everything up to Sync is skipped unread; broken framing is not.
        result.add(new Case("malformed Bind after an error before Sync (issue 13)", concat(FAILING_PARSE,
                message('B', int32(5)), sync())));
        result.add(new Case("Query without terminator after an error before Sync", concat(FAILING_PARSE,
                message('Q', text("SELECT 1")), sync())));
        result.add(new Case("Sync with a body after an error", concat(FAILING_PARSE, message('S', new byte[] {1}))));
        result.add(new Case("Describe subtype X after an error", concat(FAILING_PARSE,
                message('D', concat(new byte[] {'X'}, cString(""))), sync())));
        result.add(new Case(FAILING_UNNAMED_PARSE, concat(parse("", "SELEC 1"),
                bind("", "", new int[0], new byte[0][], new int[0]), execute("", 0), sync())));
        // Messages out of order.
        result.add(new Case("Execute of a missing portal", concat(execute("nowhere", 0), sync())));
        result.add(new Case("Describe of a missing statement and portal", concat(describe('S', "nowhere"), sync(),
                describe('P', "nowhere"), sync())));
        result.add(new Case("Parse of a name in use", concat(parse("s", "SELECT 1"), parse("s", "SELECT 2"), sync())));
        result.add(new Case("Close of what does not exist", concat(close('S', "nowhere"), close('P', "nowhere"), sync())));
        result.add(new Case("Sync alone, twice", concat(sync(), sync())));
        result.add(new Case("Execute before Bind", concat(parse("", "SELECT 1"), execute("", 0), sync())));
        result.add(new Case("pipeline without Sync, then a Query", concat(parse("", "SELECT 1"),
                bind("", "", new int[0], new byte[0][], new int[0]), execute("", 0), query("SELECT 2"))));
        // COPY: the malformed and the too-long end a COPY; data after CopyDone is ignored.
        result.add(new Case("CopyFail without terminator in a COPY", concat(query("COPY t_og FROM STDIN"),
                message('d', text("1001\tx\n")), message('f', text("gave up")))));
        result.add(new Case("CopyDone with a body in a COPY, rolled back", concat(query("BEGIN"),
                query("COPY t_og FROM STDIN"), message('d', text("1002\tx\n")), message('c', new byte[] {1, 2}),
                query("ROLLBACK"))));
        // Transactions: an error in a block fails it.
        result.add(new Case("Query without terminator in a transaction block", concat(query("BEGIN"),
                message('Q', text("SELECT 1")), query("SELECT 2"))));
        result.add(new Case("Sync with a body ends an implicit transaction with its error", concat(
                parse("", "SELECT count(*) FROM t_og"), bind("", "", new int[0], new byte[0][], new int[0]),
                execute("", 0), message('S', new byte[] {0}))));
        return result;
    }

    // ------------------------------------------------------------------ the generated cases

    /** A valid pipeline the mutations start from, as its messages. */
    private static List<List<byte[]>> bases() {
        List<List<byte[]>> result = new ArrayList<>();
        result.add(List.of(parse("", "SELECT $1::int + 1", 23), bind("", "", new int[] {0}, new byte[][] {text("41")},
                new int[] {0}), describe('P', ""), execute("", 0), sync()));
        result.add(List.of(parse("s1", "SELECT $1::text AS t, $2::int AS i"), describe('S', "s1"),
                bind("p1", "s1", new int[] {0, 1}, new byte[][] {text("x"), int32(5)}, new int[] {0, 1}),
                execute("p1", 1), execute("p1", 0), close('P', "p1"), close('S', "s1"), sync()));
        result.add(List.of(parse("", "SELECT count(*) FROM t_og WHERE id = $1"),
                bind("", "", new int[0], new byte[][] {text("3")}, new int[0]), execute("", 0), sync()));
        result.add(List.of(query("SELECT 1; SELECT 2")));
        result.add(List.of(query("BEGIN"), parse("", "SELECT $1::int", 23),
                bind("", "", new int[] {1}, new byte[][] {int32(9)}, new int[] {1}), execute("", 0), sync(),
                query("COMMIT")));
        result.add(List.of(parse("", "SELECT 1"), bind("", "", new int[0], new byte[0][], new int[0]), flush(),
                execute("", 0), sync()));
        return result;
    }

    /** {@code count} cases made from {@code seed}: case i of a seed is always the same bytes. */
    static List<Case> generated(long seed, int count) {
        List<Case> result = new ArrayList<>(count);
        List<List<byte[]>> bases = bases();
        for (int i = 0; i < count; i++) {
            Random random = new Random(seed * 1_000_003L + i);
            List<byte[]> messages = new ArrayList<>(bases.get(random.nextInt(bases.size())));
            StringBuilder name = new StringBuilder("generated ").append(seed).append('/').append(i).append(':');
            int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations && !messages.isEmpty(); m++) {
                name.append(' ').append(mutate(messages, random));
            }
            result.add(new Case(name.toString(), concat(messages.toArray(new byte[0][]))));
        }
        return result;
    }

    private static final int[] FORMAT_CODES = {0, 1, 2, 7, 32, -1};

    private static String mutate(List<byte[]> messages, Random random) {
        int at = random.nextInt(messages.size());
        byte[] chosen = messages.get(at);
        switch (random.nextInt(12)) {
            case 0 -> {
                int cut = 1 + random.nextInt(Math.max(1, Math.min(6, chosen.length - 5)));
                messages.set(at, truncated(chosen, cut));
                return "cut " + cut + " from " + (char) chosen[0];
            }
            case 1 -> {
                messages.set(at, padded(chosen, (byte) random.nextInt(256)));
                return "byte after " + (char) chosen[0];
            }
            case 2 -> {
                messages.remove(at);
                return "dropped " + (char) chosen[0];
            }
            case 3 -> {
                if (at + 1 < messages.size()) {
                    messages.set(at, messages.get(at + 1));
                    messages.set(at + 1, chosen);
                }
                return "swapped " + (char) chosen[0];
            }
            case 4 -> {
                messages.add(at, FAILING_PARSE);
                return "failing Parse before " + (char) chosen[0];
            }
            case 5 -> {
                int[] formats = new int[random.nextInt(3)];
                for (int i = 0; i < formats.length; i++) {
                    formats[i] = FORMAT_CODES[random.nextInt(FORMAT_CODES.length)];
                }
                byte[][] values = new byte[random.nextInt(3)][];
                for (int i = 0; i < values.length; i++) {
                    values[i] = random.nextInt(4) == 0 ? null : text(Integer.toString(random.nextInt(100)));
                }
                int[] results = new int[random.nextInt(3)];
                for (int i = 0; i < results.length; i++) {
                    results[i] = FORMAT_CODES[random.nextInt(FORMAT_CODES.length)];
                }
                messages.add(at, bind("", "", formats, values, results));
                return "Bind formats " + Arrays.toString(formats) + " values " + values.length + " results "
                        + Arrays.toString(results);
            }
            case 6 -> {
                byte[] copy = switch (random.nextInt(3)) {
                    case 0 -> message('d', text("7\tseven\n"));
                    case 1 -> message('c', new byte[0]);
                    default -> message('f', random.nextBoolean() ? cString("stop") : text("stop"));
                };
                messages.add(at, copy);
                return "copy message " + (char) copy[0];
            }
            case 7 -> {
                messages.add(at, random.nextBoolean() ? message('S', new byte[] {1}) : message('H', new byte[] {1}));
                return "Sync or Flush with a body";
            }
            case 8 -> {
                char kind = "SPXs".charAt(random.nextInt(4));
                messages.add(at, random.nextBoolean() ? describe(kind, random.nextBoolean() ? "" : "s1")
                        : close(kind, random.nextBoolean() ? "" : "p1"));
                return "Describe or Close " + kind;
            }
            case 9 -> {
                messages.add(at, random.nextBoolean() ? message('Q', text("SELECT 3")) : padded(query("SELECT 3"), (byte) 0));
                return "malformed Query";
            }
            case 10 -> {
                messages.add(at, execute(random.nextBoolean() ? "" : "p1", random.nextInt(3) - 1));
                return "Execute";
            }
            default -> {
                if (random.nextInt(4) == 0) {
                    // Broken framing, rarely: an unknown type byte ends the session with FATAL.
                    byte[] broken = chosen.clone();
                    broken[0] = (byte) "xyz\u00ff".charAt(random.nextInt(4));
                    messages.set(at, broken);
                    return "type " + (broken[0] & 0xff) + " for " + (char) chosen[0];
                }
                messages.add(at, sync());
                return "Sync before " + (char) chosen[0];
            }
        }
    }
}
