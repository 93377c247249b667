package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.ColumnEquality;
import io.ashlar.parser.statement.IndexReference;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.TableName;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The state of analysing one statement: its tokens, what has been found so far (tables, index
 * names, blocks, gaps) and the token-level helpers the clause parsers share. Every index is a token
 * index; {@code [from, to)} ranges never extend past {@link #end}.
 */
final class ParseContext {
    /** Keywords that start a clause of a SELECT after its select list. */
    static final Set<Keyword> CLAUSES = EnumSet.of(Keyword.FROM, Keyword.INTO, Keyword.WHERE, Keyword.GROUP,
            Keyword.HAVING, Keyword.WINDOW, Keyword.UNION, Keyword.INTERSECT, Keyword.EXCEPT, Keyword.ORDER,
            Keyword.LIMIT, Keyword.OFFSET, Keyword.FETCH, Keyword.FOR);

    final String sql;
    final TokenList tokens;
    /** Token index just past the statement. */
    final int end;
    /** For an opening parenthesis or bracket, the index of its partner; -1 when unmatched. */
    private final int[] partner;

    final List<TableReference> tables = new ArrayList<>(4);
    final List<IndexReference> indexes = new ArrayList<>(0);
    final EnumSet<AnalysisGap> gaps = EnumSet.noneOf(AnalysisGap.class);
    private final List<Block> blocks = new ArrayList<>(2);
    private final List<Qualifier> qualifiers = new ArrayList<>(0);
    /** Tokens that are a select-list item of their own, one name without an alias ({@link #markLoneNames}). */
    private final java.util.BitSet loneNames = new java.util.BitSet();
    private final List<String> cteNames = new ArrayList<>(0);

    final QueryParser queries;
    final ConditionParser conditions;
    final ValueParser values;
    final DmlParser dml;

    ParseContext(TokenList tokens, int end) {
        this.sql = tokens.sql();
        this.tokens = tokens;
        this.end = end;
        this.partner = matchBrackets();
        this.values = new ValueParser(this);
        this.conditions = new ConditionParser(this);
        this.queries = new QueryParser(this);
        this.dml = new DmlParser(this);
    }

    private int[] matchBrackets() {
        int[] result = new int[end];
        int[] stack = new int[Math.max(4, end)];
        int depth = 0;
        for (int i = 0; i < end; i++) {
            result[i] = -1;
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN || kind == TokenKind.LEFT_BRACKET) {
                if (depth == StatementAnalyzer.MAX_NESTING) {
                    tooDeep(i);
                }
                stack[depth++] = i;
            } else if (kind == TokenKind.RIGHT_PAREN || kind == TokenKind.RIGHT_BRACKET) {
                TokenKind open = kind == TokenKind.RIGHT_PAREN ? TokenKind.LEFT_PAREN : TokenKind.LEFT_BRACKET;
                if (depth == 0 || tokens.kind(stack[depth - 1]) != open) {
                    gaps.add(AnalysisGap.UNBALANCED_PARENTHESES);
                    continue;
                }
                int opening = stack[--depth];
                result[opening] = i;
                result[i] = opening;
            }
        }
        if (depth > 0) {
            gaps.add(AnalysisGap.UNBALANCED_PARENTHESES);
        }
        return result;
    }

    /**
     * Refuses a statement that nests one bracket more than the analyzer reads: as PostgreSQL does
     * when its own parser's stack would run out, past its depth; with 54001 below it.
     */
    private void tooDeep(int opening) {
        int depth = 0;
        for (int i = 0; i < end; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN || kind == TokenKind.LEFT_BRACKET) {
                if (++depth == StatementAnalyzer.POSTGRESQL_PARSER_DEPTH) {
                    throw SqlSyntaxException.tooDeep(tokens.start(i), tokens.text(i), true, StatementAnalyzer.MAX_NESTING);
                }
            } else if (kind == TokenKind.RIGHT_PAREN || kind == TokenKind.RIGHT_BRACKET) {
                depth = Math.max(0, depth - 1);
            }
        }
        throw SqlSyntaxException.tooDeep(tokens.start(opening), tokens.text(opening), false, StatementAnalyzer.MAX_NESTING);
    }

    // ---- token tests (all safe for any index)

    boolean kw(int i, Keyword keyword) {
        return i < end && tokens.isKeyword(i, keyword);
    }

    Keyword keyword(int i) {
        return i < end ? tokens.keyword(i) : Keyword.NONE;
    }

    boolean is(int i, TokenKind kind) {
        return i < end && tokens.is(i, kind);
    }

    boolean op(int i, String operator) {
        return i < end && tokens.isOperator(i, operator);
    }

    /** Whether token {@code i} is the unquoted word {@code word} (for words not in {@link Keyword}). */
    boolean word(int i, String word) {
        return i >= 0 && i < end && tokens.is(i, TokenKind.IDENTIFIER) && tokens.textEqualsIgnoreCase(i, word);
    }

    /** An identifier usable as a column or table name: any word but reserved and type/function keywords. */
    boolean isName(int i) {
        if (i >= end || i < 0) {
            return false;
        }
        TokenKind kind = tokens.kind(i);
        if (kind == TokenKind.IDENTIFIER) {
            return tokens.keyword(i).isColumnIdentifier();
        }
        return kind == TokenKind.QUOTED_IDENTIFIER || kind == TokenKind.UNICODE_IDENTIFIER;
    }

    /** Any word, keywords included (an attribute name after a dot may be any keyword). */
    boolean isWord(int i) {
        return i >= 0 && i < end && tokens.kind(i).isIdentifier();
    }

    String name(int i) {
        return tokens.identifier(i);
    }

    /** The partner of the bracket at {@code i}, or -1 if it is unmatched. */
    int close(int i) {
        return i < end ? partner[i] : -1;
    }

    /** The index after the token at {@code i}, jumping over a bracketed group; {@code to} if unmatched. */
    int skip(int i, int to) {
        if (i < end && (tokens.is(i, TokenKind.LEFT_PAREN) || tokens.is(i, TokenKind.LEFT_BRACKET))) {
            int close = partner[i];
            return close < 0 || close >= to ? to : close + 1;
        }
        return i + 1;
    }

    // ---- positions and text

    int startOffset(int i) {
        return i < end ? tokens.start(i) : endOffset();
    }

    int endOffset(int i) {
        return tokens.end(i);
    }

    /** Offset just past the statement's last token. */
    int endOffset() {
        return end == 0 ? 0 : tokens.end(end - 1);
    }

    /** The source range of tokens {@code [from, to)}; an insertion point at {@code from} when empty. */
    SourceRange range(int from, int to) {
        if (to <= from) {
            return SourceRange.at(startOffset(from));
        }
        return new SourceRange(tokens.start(from), tokens.end(to - 1));
    }

    String text(int from, int to) {
        return to <= from ? "" : sql.substring(tokens.start(from), tokens.end(to - 1));
    }

    /**
     * Tokens {@code [from, to)} as comparable text: single spaces between tokens, unquoted words in
     * lower case. Two expressions written with different spacing or keyword case compare equal.
     */
    String normalizedText(int from, int to) {
        StringBuilder result = new StringBuilder();
        for (int i = from; i < to; i++) {
            if (i > from) {
                result.append(' ');
            }
            if (tokens.is(i, TokenKind.IDENTIFIER)) {
                result.append(tokens.identifier(i));
            } else {
                result.append(sql, tokens.start(i), tokens.end(i));
            }
        }
        return result.toString();
    }

    /**
     * A type name as text: lower-case words separated by single spaces, punctuation without spaces
     * ({@code character varying(10)}, {@code pg_catalog.int8}, {@code int8[]}).
     */
    String typeText(int from, int to) {
        StringBuilder result = new StringBuilder();
        for (int i = from; i < to; i++) {
            boolean word = isWord(i) || tokens.kind(i).isNumber();
            if (word && i > from && (isWord(i - 1) || tokens.kind(i - 1).isNumber())) {
                result.append(' ');
            }
            result.append(word && isWord(i) ? tokens.identifier(i) : tokens.text(i));
        }
        return result.toString();
    }

    // ---- scanning

    /**
     * The first token in {@code [from, to)} at bracket depth 0 that starts one of {@code stops},
     * else {@code to}. Skips the keyword uses that do not start a clause: {@code IS [NOT] DISTINCT FROM},
     * {@code ROWS FROM (...)}, {@code WITHIN GROUP (...)}.
     */
    int clauseEnd(int from, int to, Set<Keyword> stops) {
        int i = from;
        while (i < to) {
            Keyword keyword = tokens.keyword(i);
            if (keyword != Keyword.NONE && stops.contains(keyword) && !isEmbeddedKeyword(i, keyword)) {
                return i;
            }
            i = skip(i, to);
        }
        return to;
    }

    private boolean isEmbeddedKeyword(int i, Keyword keyword) {
        if (keyword == Keyword.FROM) {
            if (kw(i - 1, Keyword.ROWS)) {
                return true;
            }
            return kw(i - 1, Keyword.DISTINCT)
                    && (kw(i - 2, Keyword.IS) || (kw(i - 2, Keyword.NOT) && kw(i - 3, Keyword.IS)));
        }
        return keyword == Keyword.GROUP && kw(i - 1, Keyword.WITHIN);
    }

    /** The first token in {@code [from, to)} at depth 0 that is {@code keyword}, or -1. */
    int find(int from, int to, Keyword keyword) {
        int i = from;
        while (i < to) {
            if (tokens.isKeyword(i, keyword)) {
                return i;
            }
            i = skip(i, to);
        }
        return -1;
    }

    /** The items of a depth-0 comma-separated list as {@code [start, end)} token pairs; none for an empty range. */
    List<int[]> splitCommas(int from, int to) {
        List<int[]> result = new ArrayList<>(4);
        if (from >= to) {
            return result;
        }
        int start = from;
        int i = from;
        while (i < to) {
            if (tokens.is(i, TokenKind.COMMA)) {
                result.add(new int[] {start, i});
                start = i + 1;
                i++;
            } else {
                i = skip(i, to);
            }
        }
        result.add(new int[] {start, to});
        return result;
    }

    /**
     * Whether a query starts at {@code i}: SELECT, WITH, VALUES, TABLE, or a parenthesised query that
     * is followed by a set operation, ORDER BY, LIMIT and the like, or by the end of its enclosing group.
     */
    boolean startsQuery(int i) {
        // A loop, not a recursion over the parentheses: a statement's nesting must not cost stack here.
        int first = i;
        while (is(first, TokenKind.LEFT_PAREN)) {
            first++;
        }
        Keyword keyword = keyword(first);
        if (keyword != Keyword.SELECT && keyword != Keyword.WITH && keyword != Keyword.VALUES
                && keyword != Keyword.TABLE) {
            return false;
        }
        for (int open = i; open < first; open++) {
            if (!closedAsQuery(open)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the parenthesis at {@code open} closes where a parenthesised query may end. */
    private boolean closedAsQuery(int open) {
        int close = close(open);
        if (close < 0) {
            return false;
        }
        int next = close + 1;
        if (next >= end || tokens.is(next, TokenKind.RIGHT_PAREN)) {
            return true;
        }
        Keyword after = tokens.keyword(next);
        return after == Keyword.UNION || after == Keyword.INTERSECT || after == Keyword.EXCEPT
                || after == Keyword.ORDER || after == Keyword.LIMIT || after == Keyword.OFFSET
                || after == Keyword.FETCH || after == Keyword.FOR;
    }

    /**
     * Walks an expression for what matters inside it: subqueries (analysed as blocks nested in
     * {@code block}) and qualified column references whose qualifier may be a table name.
     */
    void scanExpression(int from, int to, int block) {
        int i = from;
        while (i < to) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN) {
                int close = close(i);
                if (close > i && close < to && startsQuery(i + 1)) {
                    int nested = newBlock(block);
                    queries.parse(i + 1, close, nested, block, false);
                    i = close + 1;
                    continue;
                }
                i++;
                continue;
            }
            if (kind.isIdentifier() && is(i + 1, TokenKind.DOT) && !is(i - 1, TokenKind.DOT)
                    && !is(i - 1, TokenKind.TYPECAST)) {
                i = dottedReference(i, to, block);
                continue;
            }
            if (isWholeRowCandidate(i)) {
                qualifiers.add(new Qualifier(i, i, "", name(i), block,
                        loneNames.get(i) ? TableRole.WHOLE_ROW_COLUMN : TableRole.COLUMN_QUALIFIER));
            }
            i++;
        }
    }

    /**
     * Marks the items of a select list that are one name without an alias: should the name be a table's, written as a
     * whole-row value, its column keeps that name after the rewrite.
     */
    void markLoneNames(Iterable<int[]> items) {
        for (int[] item : items) {
            if (item[1] - item[0] == 1 && isName(item[0])) {
                loneNames.set(item[0]);
            }
        }
    }

    /**
     * Whether token {@code i} may be a table's name used as a whole-row value ({@code SELECT t_order FROM t_order},
     * {@code row_to_json(t_order)}): a lone name in an expression position, neither a function's, a type's, a typed
     * literal's, a named argument's, nor an alias (after AS, or right after an expression). Whether it names a table
     * of the statement is decided with the qualifiers ({@link #resolveQualifiers}); a column of the same name would
     * win in PostgreSQL, which the parser cannot see.
     */
    private boolean isWholeRowCandidate(int i) {
        if (i == 0 || !isName(i) || is(i + 1, TokenKind.LEFT_PAREN) || is(i + 1, TokenKind.DOT) || op(i + 1, "=>")
                || i + 1 < end && tokens.kind(i + 1).isString()) {
            return false;
        }
        TokenKind before = tokens.kind(i - 1);
        return switch (before) {
            case OPERATOR, COMMA, LEFT_PAREN, LEFT_BRACKET -> true;
            case IDENTIFIER -> {
                Keyword keyword = tokens.keyword(i - 1);
                yield keyword != Keyword.AS && (keyword.category() == Keyword.Category.RESERVED || keyword == Keyword.BY);
            }
            default -> false;
        };
    }

    /** Handles {@code a.b}, {@code a.b.c}, {@code a.*}, {@code s.t.*} starting at {@code i}; returns the next index. */
    private int dottedReference(int i, int to, int block) {
        int last = i;
        int parts = 1;
        while (last + 2 < to && is(last + 1, TokenKind.DOT) && (isWord(last + 2) || op(last + 2, "*"))) {
            last += 2;
            parts++;
            if (op(last, "*")) {
                break;
            }
        }
        if (parts < 2 || is(last + 1, TokenKind.LEFT_PAREN)) {
            return last + 1;
        }
        // the qualifier is the part before the column; a part before that is its schema
        int qualifierToken = last - 2;
        int firstToken = parts >= 3 ? last - 4 : qualifierToken;
        String schema = parts >= 3 ? name(last - 4) : "";
        String qualifier = name(qualifierToken);
        if (!(schema.isEmpty() && isCte(qualifier))) {
            qualifiers.add(new Qualifier(firstToken, qualifierToken, schema, qualifier, block));
        }
        return last + 1;
    }

    /** Records a name used as a column qualifier outside expressions ({@code FOR UPDATE OF t}). */
    void addQualifier(QualifiedName name, int block) {
        if (name.parts().size() == 1 && isCte(name.last())) {
            return;
        }
        String schema = name.parts().size() >= 2 ? name.parts().get(name.parts().size() - 2) : "";
        qualifiers.add(new Qualifier(name.first(), name.lastToken(), schema, name.last(), block));
    }

    // ---- names

    /** A dotted name of up to three parts starting at {@code i}, or null when {@code i} is not a name. */
    QualifiedName qualifiedName(int i, int to) {
        if (i >= to || !isName(i)) {
            return null;
        }
        List<String> parts = new ArrayList<>(2);
        parts.add(name(i));
        int last = i;
        while (last + 2 < to && is(last + 1, TokenKind.DOT) && isWord(last + 2) && parts.size() < 3) {
            last += 2;
            parts.add(name(last));
        }
        return new QualifiedName(i, last, parts);
    }

    /** Adds a table reference; returns its index in {@link #tables}. */
    int addTable(QualifiedName name, Optional<String> alias, TableRole role, int block) {
        tables.add(new TableReference(tableName(name), range(name.first(), name.lastToken() + 1),
                range(name.lastToken(), name.lastToken() + 1), !tokens.is(name.lastToken(), TokenKind.IDENTIFIER),
                alias, role, block));
        return tables.size() - 1;
    }

    /** Adds an index or constraint name. */
    void addIndex(QualifiedName name, boolean constraint, OptionalInt table) {
        indexes.add(new IndexReference(tableName(name), range(name.first(), name.lastToken() + 1),
                range(name.lastToken(), name.lastToken() + 1), constraint, table));
    }

    private static TableName tableName(QualifiedName name) {
        List<String> parts = name.parts();
        return parts.size() == 1 ? TableName.of(parts.get(0))
                : TableName.of(parts.get(parts.size() - 2), parts.get(parts.size() - 1));
    }

    /**
     * An alias at {@code i}: {@code AS name} or a bare name, then an optional column alias list.
     * Returns the alias (empty if none) and stores the next index in {@code next[0]}.
     */
    Optional<String> alias(int i, int to, int[] next) {
        int j = i;
        Optional<String> result = Optional.empty();
        if (kw(j, Keyword.AS) && j + 1 < to) {
            if (isWord(j + 1)) {
                result = Optional.of(name(j + 1));
                j += 2;
            } else {
                j++;
            }
        } else if (j < to && isName(j)) {
            result = Optional.of(name(j));
            j++;
        }
        if (j < to && is(j, TokenKind.LEFT_PAREN) && (result.isPresent() || j > i)) {
            j = skip(j, to);
        }
        next[0] = j;
        return result;
    }

    // ---- common table expressions

    int cteMark() {
        return cteNames.size();
    }

    void cteRestore(int mark) {
        while (cteNames.size() > mark) {
            cteNames.remove(cteNames.size() - 1);
        }
    }

    void addCte(String name) {
        cteNames.add(name);
    }

    boolean isCte(String name) {
        for (int i = cteNames.size() - 1; i >= 0; i--) {
            if (cteNames.get(i).equals(name)) {
                return true;
            }
        }
        return false;
    }

    // ---- blocks and conditions

    int newBlock(int parent) {
        blocks.add(new Block(blocks.size(), parent));
        return blocks.size() - 1;
    }

    void addWhere(int block, ConditionParser.Node node) {
        blocks.get(block).where.add(node);
    }

    void addJoinCondition(int block, ConditionParser.Node node) {
        blocks.get(block).joinConditions.add(node);
    }

    void markOuterJoin(int block) {
        blocks.get(block).outerJoin = true;
    }

    /** The finished blocks, with column qualifiers resolved into table references. */
    List<QueryBlock> finishBlocks() {
        resolveQualifiers();
        List<QueryBlock> result = new ArrayList<>(blocks.size());
        for (Block block : blocks) {
            List<ConditionParser.Node> restricting = new ArrayList<>(block.where);
            if (!block.outerJoin) {
                restricting.addAll(block.joinConditions);
            }
            List<ColumnEquality> equalities = new ArrayList<>(0);
            for (ConditionParser.Node node : block.where) {
                ConditionParser.collectEqualities(node, equalities);
            }
            for (ConditionParser.Node node : block.joinConditions) {
                ConditionParser.collectEqualities(node, equalities);
            }
            result.add(new QueryBlock(block.id, block.parent, ConditionParser.toConditions(restricting), equalities,
                    block.outerJoin));
        }
        return result;
    }

    /**
     * Turns each qualifier that names a table written without an alias, in its own block or an
     * enclosing one, into a {@link TableRole#COLUMN_QUALIFIER} reference, so that rewriting renames
     * it together with the table. An alias of the same name shadows the table, as in PostgreSQL.
     */
    private void resolveQualifiers() {
        for (Qualifier qualifier : qualifiers) {
            int block = qualifier.block;
            while (block >= 0) {
                TableReference match = null;
                boolean aliasMatch = false;
                for (TableReference table : tables) {
                    if (table.block() != block || !table.isAccess()) {
                        continue;
                    }
                    if (table.alias().isPresent()) {
                        aliasMatch |= qualifier.schema.isEmpty() && table.alias().get().equals(qualifier.name);
                    } else if (table.name().name().equals(qualifier.name) && (qualifier.schema.isEmpty()
                            || table.name().schema().orElse(qualifier.schema).equals(qualifier.schema))) {
                        match = table;
                    }
                }
                if (aliasMatch) {
                    break;
                }
                if (match != null) {
                    tables.add(new TableReference(match.name(), range(qualifier.firstToken, qualifier.lastToken + 1),
                            range(qualifier.lastToken, qualifier.lastToken + 1),
                            !tokens.is(qualifier.lastToken, TokenKind.IDENTIFIER), Optional.empty(),
                            qualifier.role, qualifier.block));
                    break;
                }
                block = blocks.get(block).parent;
            }
        }
    }

    /** A dotted name: tokens {@code first} to {@code lastToken}, normalised parts. */
    record QualifiedName(int first, int lastToken, List<String> parts) {
        String last() {
            return parts.get(parts.size() - 1);
        }

        int next() {
            return lastToken + 1;
        }
    }

    private record Qualifier(int firstToken, int lastToken, String schema, String name, int block, TableRole role) {
        Qualifier(int firstToken, int lastToken, String schema, String name, int block) {
            this(firstToken, lastToken, schema, name, block, TableRole.COLUMN_QUALIFIER);
        }
    }

    private static final class Block {
        final int id;
        final int parent;
        final List<ConditionParser.Node> where = new ArrayList<>(1);
        final List<ConditionParser.Node> joinConditions = new ArrayList<>(0);
        boolean outerJoin;

        Block(int id, int parent) {
            this.id = id;
            this.parent = parent;
        }
    }
}
