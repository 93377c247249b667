package io.ashlar.backend.metadata;

import io.ashlar.parser.SqlText;
import io.ashlar.rewrite.template.Identifiers;
import java.util.ArrayList;
import java.util.List;

/**
 * A foreign key whose rows may lie on different data sources, which the proxy enforces itself as PostgreSQL's RI
 * triggers do (NO ACTION): a referencing row's key is looked up in the referenced table, locked FOR KEY SHARE, before
 * the write; a referenced key a write removes is looked for among the referencing rows after it.
 *
 * <p>Where it is kept: on every actual table of the referencing table, as a CHECK constraint of the key's name that is
 * always true, {@code NOT VALID}, whose only operand is a string carrying the key's definition ({@link #placeholder}).
 * That record lives in the data sources themselves, so it survives a restart of the proxy and every proxy on the same
 * data sources reads it (with the rest of the schema, at start and after DDL); it goes with DROP TABLE of the
 * referencing table and with {@code ALTER TABLE ... DROP CONSTRAINT name}, as a foreign key does; and it costs a
 * write nothing (the constant folds away). The schema reader turns it back into the foreign key
 * ({@link ConstraintMetadata#enforcedByProxy()}), which the catalog database's shells then carry like any other.
 *
 * @param name          the constraint's name
 * @param table         the referencing logical table, {@code schema.name}
 * @param columns       the referencing columns
 * @param parent        the referenced logical table, {@code schema.name}
 * @param parentColumns the referenced columns, position by position
 * @see <a href="https://github.com/postgres/postgres/blob/master/src/backend/utils/adt/ri_triggers.c">ri_triggers.c</a>
 */
public record ProxyForeignKey(String name, String table, List<String> columns, String parent, List<String> parentColumns) {

    /** What starts the string that carries the key in its placeholder CHECK constraint. */
    static final String MARKER = "ashlar foreign key: ";

    public ProxyForeignKey {
        columns = List.copyOf(columns);
        parentColumns = List.copyOf(parentColumns);
    }

    /** The key's definition as pg_get_constraintdef prints a foreign key: {@code FOREIGN KEY (a, b) REFERENCES s.t(c, d)}. */
    public String definition() {
        int dot = parent.indexOf('.');
        return "FOREIGN KEY (" + list(columns) + ") REFERENCES " + Identifiers.write(parent.substring(0, dot), false) + "."
                + Identifiers.write(parent.substring(dot + 1), false) + "(" + list(parentColumns) + ")";
    }

    /** The ALTER TABLE that records the key on one actual table of the referencing table. */
    public String placeholder(String actualTable) {
        return "ALTER TABLE " + actualTable + " ADD CONSTRAINT " + Identifiers.write(name, false) + " CHECK ("
                + SqlText.literal(MARKER + definition()) + " <> '') NOT VALID";
    }

    /** The logical table's name without its schema. */
    public static String unqualified(String qualified) {
        return qualified.substring(qualified.indexOf('.') + 1);
    }

    /** Names joined by ", ", quoted where PostgreSQL needs it. */
    public static String list(List<String> names) {
        StringBuilder result = new StringBuilder();
        for (String each : names) {
            result.append(result.isEmpty() ? "" : ", ").append(Identifiers.write(each, false));
        }
        return result.toString();
    }

    /**
     * The foreign key's definition carried by a CHECK constraint's definition as pg_get_constraintdef prints it
     * ({@code CHECK (('ashlar foreign key: FOREIGN KEY ...'::text <> ''::text)) NOT VALID}), or "" for any other check.
     */
    static String fromPlaceholder(String checkDefinition) {
        int start = checkDefinition.indexOf("'" + MARKER);
        if (start < 0) {
            return "";
        }
        StringBuilder result = new StringBuilder();
        for (int i = start + 1 + MARKER.length(); i < checkDefinition.length(); i++) {
            char c = checkDefinition.charAt(i);
            if (c == '\'') {
                if (i + 1 < checkDefinition.length() && checkDefinition.charAt(i + 1) == '\'') {
                    result.append(c);
                    i++;
                    continue;
                }
                return result.toString();
            }
            result.append(c);
        }
        return "";
    }

    /** The key of a foreign key constraint enforced by the proxy, read from its definition ({@link #definition()}); null if unreadable. */
    static ProxyForeignKey parse(String name, String table, String definition) {
        List<String> words = new ArrayList<>();
        int i = 0;
        int n = definition.length();
        while (i < n) {
            char c = definition.charAt(i);
            if (c == '"') {
                StringBuilder word = new StringBuilder();
                i++;
                while (i < n) {
                    char d = definition.charAt(i);
                    if (d == '"') {
                        if (i + 1 < n && definition.charAt(i + 1) == '"') {
                            word.append('"');
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    word.append(d);
                    i++;
                }
                words.add("\u0000" + word);
            } else if (c == '(' || c == ')' || c == ',' || c == '.') {
                words.add(String.valueOf(c));
                i++;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else {
                int start = i;
                while (i < n && "\"(),. \t\n".indexOf(definition.charAt(i)) < 0) {
                    i++;
                }
                words.add(definition.substring(start, i));
            }
        }
        // FOREIGN KEY ( cols ) REFERENCES schema . table ( cols )
        if (words.size() < 9 || !words.get(0).equalsIgnoreCase("FOREIGN") || !words.get(1).equalsIgnoreCase("KEY") || !words.get(2).equals("(")) {
            return null;
        }
        List<String> columns = new ArrayList<>();
        int k = names(words, 3, columns);
        if (k + 4 >= words.size() || !words.get(k).equalsIgnoreCase("REFERENCES") || !words.get(k + 2).equals(".")) {
            return null;
        }
        String parent = word(words.get(k + 1)) + "." + word(words.get(k + 3));
        if (!words.get(k + 4).equals("(")) {
            return null;
        }
        List<String> parentColumns = new ArrayList<>();
        names(words, k + 5, parentColumns);
        if (columns.isEmpty() || columns.size() != parentColumns.size()) {
            return null;
        }
        return new ProxyForeignKey(name, table, columns, parent, parentColumns);
    }

    /** Reads names separated by commas up to ")", from {@code from}; returns the index after ")". */
    private static int names(List<String> words, int from, List<String> out) {
        int i = from;
        while (i < words.size() && !words.get(i).equals(")")) {
            if (!words.get(i).equals(",")) {
                out.add(word(words.get(i)));
            }
            i++;
        }
        return i + 1;
    }

    private static String word(String token) {
        return token.startsWith("\u0000") ? token.substring(1) : token.toLowerCase(java.util.Locale.ROOT);
    }
}
