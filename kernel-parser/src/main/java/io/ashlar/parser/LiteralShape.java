package io.ashlar.parser;

import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.Conjunction;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.ShardingCondition;
import io.ashlar.parser.statement.ShardingConditions;
import io.ashlar.parser.statement.SqlValue;
import java.util.List;

/**
 * Statements that differ only in the constants they compare columns with: {@code WHERE aid = 42137} and
 * {@code WHERE aid = 90811}, as applications that inline their values send them in simple queries. One
 * analysis, the template, serves every text of its shape: {@link #rebind(TokenList)} makes the analysis of another
 * text by putting that text's constants into the template's sharding conditions, without parsing it, and
 * {@link #textEnd} tells a text of the shape from its characters alone, without lexing it.
 *
 * <p>The shape of a text ({@link #key}) is the text with the characters of its <em>varying</em> constants masked:
 * an integer (digits only, no leading zero, at most 18 of them) or a plain string ({@code '...'} without quotes
 * inside) written just after a comparison operator ({@code =}, {@code <}, {@code >}, {@code <=}, {@code >=},
 * {@code <>}, {@code !=}). Digits mask to one mark and letters to another, and the length stays, so two texts of one
 * shape are the same text but for those characters: same tokens, same positions, so every {@link
 * io.ashlar.parser.statement.SourceRange} of the template holds for both, and whatever a later step reads from the
 * text by range (a HAVING condition, a select-list item) it reads from the new text.
 *
 * <p>A varying constant is <em>covered</em> when the template's sharding conditions hold it as a {@link LiteralValue}
 * whose value is its text (nothing else does); rebinding replaces those. A constant that is not covered (a
 * {@code SET x = 5}, a {@code CASE WHEN x = 5}, an outer join's {@code ON}) must be the same as in the template,
 * else there is no rebinding. Whether any other part of the analysis keeps a covered constant's value (a
 * select-list item's text, say) is not known from here: callers {@link #verify} a shape on texts whose covered
 * constants all differ from the template's before they rely on it, and the equality of records finds any such
 * part.
 *
 * <p>Immutable but for the verification count, whose racy updates are harmless.
 */
public final class LiteralShape {

    /** How many texts must have been analysed and found equal to the rebinding before {@link #verified()} holds. */
    static final int VERIFICATIONS = 2;
    private static final int MAX_DIGITS = 18;
    private static final char DIGIT_MARK = '\0';
    private static final char LETTER_MARK = '\1';

    private final AnalyzedStatement template;
    private final int tokenCount;
    /** The varying constants: token indexes. */
    private final int[] constants;
    /** Their start and end offsets, by pairs. */
    private final int[] positions;
    private final boolean[] covered;
    /** Whether each is a string (else an integer). */
    private final boolean[] strings;
    private final boolean digitsVary;
    private volatile int verifications;
    private volatile boolean refused;

    private LiteralShape(AnalyzedStatement template, TokenList tokens, int[] constants, boolean[] covered) {
        this.template = template;
        this.tokenCount = tokens.size();
        this.constants = constants;
        this.covered = covered;
        this.positions = new int[2 * constants.length];
        this.strings = new boolean[constants.length];
        boolean digits = true;
        for (int k = 0; k < constants.length; k++) {
            digits &= !covered[k] || tokens.kind(constants[k]) == TokenKind.INTEGER;
            positions[2 * k] = tokens.start(constants[k]);
            positions[2 * k + 1] = tokens.end(constants[k]);
            strings[k] = tokens.kind(constants[k]) == TokenKind.STRING;
        }
        this.digitsVary = digits;
    }

    /**
     * The key of the text's shape: the text with its varying constants masked, or null when it has none (its
     * analysis serves that text only).
     */
    public static String key(TokenList tokens) {
        char[] chars = null;
        for (int i = 1, n = tokens.size(); i < n; i++) {
            if (varying(tokens, i)) {
                if (chars == null) {
                    chars = tokens.sql().toCharArray();
                }
                for (int at = tokens.start(i), end = tokens.end(i); at < end; at++) {
                    chars[at] = mark(chars[at]);
                }
            }
        }
        return chars == null ? null : new String(chars);
    }

    /**
     * The shape of {@code tokens}' text, {@code template} its complete analysis; null when no varying constant of it
     * is covered (rebinding would serve that text only) or the analysis is incomplete.
     */
    public static LiteralShape of(AnalyzedStatement template, TokenList tokens) {
        if (!template.isComplete() || !template.sql().equals(tokens.sql())) {
            return null;
        }
        int count = 0;
        for (int i = 1, n = tokens.size(); i < n; i++) {
            if (varying(tokens, i)) {
                count++;
            }
        }
        int[] constants = new int[count];
        boolean[] covered = new boolean[count];
        boolean any = false;
        for (int i = 1, k = 0, n = tokens.size(); i < n; i++) {
            if (varying(tokens, i)) {
                constants[k] = i;
                covered[k] = covered(template, tokens, i);
                any |= covered[k];
                k++;
            }
        }
        return any ? new LiteralShape(template, tokens, constants, covered) : null;
    }

    /** The analysis this shape was made from. */
    public AnalyzedStatement template() {
        return template;
    }

    /** Whether the constants that vary between texts of this shape are all integers: only digits differ. */
    public boolean digitsVary() {
        return digitsVary;
    }

    /** Whether enough texts were analysed and found equal to their rebinding ({@link #verify}). */
    public boolean verified() {
        return verifications >= VERIFICATIONS && !refused;
    }

    /** Whether a text's analysis was found to differ from its rebinding: the shape is not to be used. */
    public boolean refused() {
        return refused;
    }

    /**
     * The analysis of {@code tokens}' text, a text of this shape ({@link #key} gave the same), made from the
     * template; null when a constant the template does not cover differs from the template's.
     */
    public AnalyzedStatement rebind(TokenList tokens) {
        return ofShape(tokens) ? rebind(tokens.sql()) : null;
    }

    /**
     * Whether {@code tokens} are those of a text of this shape, its constants at the template's places, and its
     * uncovered constants the template's.
     */
    private boolean ofShape(TokenList tokens) {
        String sql = tokens.sql();
        String original = template.sql();
        if (tokens.size() != tokenCount || sql.length() != original.length()) {
            return false;
        }
        for (int k = 0; k < constants.length; k++) {
            int i = constants[k];
            int start = startOf(k);
            if (tokens.start(i) != start || tokens.end(i) != endOf(k) || !varying(tokens, i)) {
                return false; // not of this shape after all
            }
            if (!covered[k] && !sql.regionMatches(start, original, start, endOf(k) - start)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Where the statement ends in a simple query string that is a text of this shape, made of its characters alone
     * (no lexing): the template's text but for the covered constants, which hold characters of the same classes (an
     * integer's digits, without a leading zero; a string's letters and digits, its other characters the same),
     * followed by nothing or by one {@code ;}. Such a string lexes as the template's did, token for token, since what
     * tells tokens apart (quotes, operators, spaces, which characters end a word or a number) is all the same.
     *
     * @return the template's length, or -1 when the string is not of this shape
     */
    public int textEnd(String sql) {
        String original = template.sql();
        int n = original.length();
        int length = sql.length();
        if (length != n && (length != n + 1 || sql.charAt(n) != ';')) {
            return -1;
        }
        int at = 0;
        for (int k = 0; k < constants.length; k++) {
            if (!covered[k]) {
                continue; // (compared as part of the text around it)
            }
            int start = startOf(k);
            int end = endOf(k);
            if (!sql.regionMatches(at, original, at, start - at)) {
                return -1;
            }
            if (strings[k]) {
                if (sql.charAt(start) != '\'' || sql.charAt(end - 1) != '\'') {
                    return -1;
                }
                for (int i = start + 1; i < end - 1; i++) {
                    char c = sql.charAt(i);
                    char was = original.charAt(i);
                    if (c != was && (mark(c) != mark(was) || mark(c) == c)) {
                        return -1;
                    }
                }
            } else {
                if (sql.charAt(start) == '0') {
                    return -1;
                }
                for (int i = start; i < end; i++) {
                    char c = sql.charAt(i);
                    if (c < '0' || c > '9') {
                        return -1;
                    }
                }
            }
            at = end;
        }
        return sql.regionMatches(at, original, at, n - at) ? n : -1;
    }

    /** The statement {@code sql} of this shape ({@link #textEnd} or {@link #key} said so) is, its constants rebound. */
    public AnalyzedStatement rebind(String sql) {
        List<QueryBlock> blocks = template.blocks();
        QueryBlock[] rebound = null;
        for (int b = 0, n = blocks.size(); b < n; b++) {
            QueryBlock block = blocks.get(b);
            ShardingConditions where = rebound(block.where(), sql);
            if (where != block.where()) {
                if (rebound == null) {
                    rebound = blocks.toArray(new QueryBlock[0]);
                }
                rebound[b] = new QueryBlock(block.id(), block.parent(), where, block.joinEqualities(), block.outerJoin());
            }
        }
        return new AnalyzedStatement(sql, template.kind(), template.command(), template.body(), template.tables(),
                template.indexes(), rebound == null ? blocks : List.of(rebound), template.parameters(),
                template.parameterCount(), template.gaps(), template.sessionValues(), template.catalogFunctions());
    }

    /**
     * Checks the shape on a text just analysed: counts a verification when {@code analysed}, its analysis, equals
     * its rebinding and every covered constant differs from the template's (else a part of the analysis that keeps
     * a constant could go unseen), and refuses the shape for good when they differ.
     */
    public void verify(TokenList tokens, AnalyzedStatement analysed) {
        if (refused || !ofShape(tokens) || !differsInEveryCovered(tokens.sql())) {
            return;
        }
        if (rebind(tokens.sql()).equals(analysed)) {
            verifications++;
        } else {
            refused = true;
        }
    }

    /** Whether {@code sql}, a text of this shape, has another value than the template's in every covered constant. */
    private boolean differsInEveryCovered(String sql) {
        String original = template.sql();
        for (int k = 0; k < constants.length; k++) {
            int start = startOf(k);
            if (covered[k] && sql.regionMatches(start, original, start, endOf(k) - start)) {
                return false;
            }
        }
        return true;
    }

    private ShardingConditions rebound(ShardingConditions where, String sql) {
        List<Conjunction> disjuncts = where.disjuncts();
        Conjunction[] result = null;
        for (int d = 0, n = disjuncts.size(); d < n; d++) {
            Conjunction conjunction = disjuncts.get(d);
            List<ShardingCondition> conditions = conjunction.conditions();
            ShardingCondition[] changed = null;
            for (int c = 0, m = conditions.size(); c < m; c++) {
                ShardingCondition condition = conditions.get(c);
                List<SqlValue> values = condition.values();
                SqlValue[] newValues = null;
                for (int v = 0, size = values.size(); v < size; v++) {
                    if (values.get(v) instanceof LiteralValue literal) {
                        int constant = coveredIn(literal);
                        if (constant >= 0) {
                            int start = startOf(constant);
                            int end = endOf(constant);
                            String value = strings[constant] ? sql.substring(start + 1, end - 1) : sql.substring(start, end);
                            if (newValues == null) {
                                newValues = values.toArray(new SqlValue[0]);
                            }
                            newValues[v] = new LiteralValue(literal.kind(), value, literal.typeName(),
                                    literal.range());
                        }
                    }
                }
                if (newValues != null) {
                    if (changed == null) {
                        changed = conditions.toArray(new ShardingCondition[0]);
                    }
                    changed[c] = new ShardingCondition(condition.column(), condition.operator(), List.of(newValues));
                }
            }
            if (changed != null) {
                if (result == null) {
                    result = disjuncts.toArray(new Conjunction[0]);
                }
                result[d] = new Conjunction(List.of(changed));
            }
        }
        return result == null ? where : new ShardingConditions(List.of(result));
    }

    /** Which covered constant {@code literal} holds (its index among the varying ones), or -1. */
    private int coveredIn(LiteralValue literal) {
        int start = literal.range().start();
        int end = literal.range().end();
        for (int k = 0; k < constants.length; k++) {
            // (Positions are the template's; a text of the same shape has them too.)
            if (covered[k] && start <= startOf(k) && endOf(k) <= end) {
                return k;
            }
        }
        return -1;
    }

    private int startOf(int k) {
        return positions[2 * k];
    }

    private int endOf(int k) {
        return positions[2 * k + 1];
    }

    /** What a character of a varying constant becomes in a shape's key: digits and letters their class's mark. */
    private static char mark(char c) {
        if (c >= '0' && c <= '9') {
            return DIGIT_MARK;
        }
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ? LETTER_MARK : c;
    }

    /** Whether token {@code i} is a constant whose characters may vary within a shape. */
    private static boolean varying(TokenList tokens, int i) {
        TokenKind kind = tokens.kind(i);
        if (kind != TokenKind.INTEGER && kind != TokenKind.STRING || !comparison(tokens, i - 1)) {
            return false;
        }
        String sql = tokens.sql();
        int start = tokens.start(i);
        int end = tokens.end(i);
        if (kind == TokenKind.INTEGER) {
            if (end - start > MAX_DIGITS || sql.charAt(start) == '0') {
                return false;
            }
            for (int at = start; at < end; at++) {
                char c = sql.charAt(at);
                if (c < '0' || c > '9') {
                    return false;
                }
            }
            return true;
        }
        if (end - start < 2 || sql.charAt(start) != '\'' || sql.charAt(end - 1) != '\'') {
            return false;
        }
        return sql.indexOf('\'', start + 1) == end - 1;
    }

    private static boolean comparison(TokenList tokens, int i) {
        if (!tokens.is(i, TokenKind.OPERATOR)) {
            return false;
        }
        int length = tokens.end(i) - tokens.start(i);
        if (length == 1) {
            return tokens.textEquals(i, "=") || tokens.textEquals(i, "<") || tokens.textEquals(i, ">");
        }
        return length == 2 && (tokens.textEquals(i, "<=") || tokens.textEquals(i, ">=") || tokens.textEquals(i, "<>")
                || tokens.textEquals(i, "!="));
    }

    /** The value a varying constant has in an analysis: an integer's digits, a plain string's characters. */
    private static String value(TokenList tokens, int i) {
        int start = tokens.start(i);
        int end = tokens.end(i);
        return tokens.kind(i) == TokenKind.INTEGER ? tokens.sql().substring(start, end)
                : tokens.sql().substring(start + 1, end - 1);
    }

    /**
     * Whether the template's sharding conditions hold token {@code i} as a literal of its own value, and no literal
     * holding it has another value (a sign or an expression around it).
     */
    private static boolean covered(AnalyzedStatement template, TokenList tokens, int i) {
        int start = tokens.start(i);
        int end = tokens.end(i);
        String value = value(tokens, i);
        boolean found = false;
        for (QueryBlock block : template.blocks()) {
            for (Conjunction conjunction : block.where().disjuncts()) {
                for (ShardingCondition condition : conjunction.conditions()) {
                    for (SqlValue each : condition.values()) {
                        if (each instanceof LiteralValue literal && literal.range().start() <= start
                                && end <= literal.range().end()) {
                            if (!literal.value().equals(value)) {
                                return false;
                            }
                            found = true;
                        }
                    }
                }
            }
        }
        return found;
    }
}
