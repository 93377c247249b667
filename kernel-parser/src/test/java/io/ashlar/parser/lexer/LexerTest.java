package io.ashlar.parser.lexer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LexerTest {

    private static String lex(String sql) {
        return Lexer.tokenize(sql).toString();
    }

    private static String lexJdbc(String sql) {
        return Lexer.tokenize(sql, true).toString();
    }

    @Test
    void simpleSelect() {
        assertEquals("IDENTIFIER(SELECT) IDENTIFIER(a) COMMA(,) IDENTIFIER(b) IDENTIFIER(FROM) IDENTIFIER(t) "
                        + "IDENTIFIER(WHERE) IDENTIFIER(id) OPERATOR(=) PARAMETER($1) SEMICOLON(;)",
                lex("SELECT a, b FROM t WHERE id = $1;"));
    }

    @Test
    void keywordsAreRecognisedInAnyCaseAndOnlyUnquoted() {
        TokenList tokens = Lexer.tokenize("SeLeCt \"select\" selected from_x");
        assertEquals(Keyword.SELECT, tokens.keyword(0));
        assertEquals(Keyword.NONE, tokens.keyword(1));
        assertEquals(Keyword.NONE, tokens.keyword(2));
        assertEquals(Keyword.NONE, tokens.keyword(3));
        assertTrue(tokens.isKeyword(0, Keyword.SELECT));
        assertEquals(Keyword.NONE, tokens.keyword(99));
    }

    @Test
    void identifiersAreFoldedAndUnquoted() {
        TokenList tokens = Lexer.tokenize("FooBar \"FooBar\" \"a\"\"b\" U&\"d\\0061t\\+000061\" U&\"d!0061t\" UESCAPE '!' _x$1 été");
        assertEquals("foobar", tokens.identifier(0));
        assertEquals("FooBar", tokens.identifier(1));
        assertEquals("a\"b", tokens.identifier(2));
        assertEquals(TokenKind.UNICODE_IDENTIFIER, tokens.kind(3));
        assertEquals("data", tokens.identifier(3));
        assertEquals(TokenKind.UNICODE_IDENTIFIER, tokens.kind(4));
        assertEquals("U&\"d!0061t\" UESCAPE '!'", tokens.text(4));
        assertEquals("dat", tokens.identifier(4));
        assertEquals("_x$1", tokens.identifier(5));
        assertEquals("été", tokens.identifier(6));
        assertEquals(7, tokens.size());
    }

    @Test
    void longIdentifiersAreTruncatedTo63Bytes() {
        String name = "a".repeat(70);
        assertEquals("a".repeat(63), Lexer.tokenize(name).identifier(0));
        // two-byte characters are never cut in half
        String accented = "é".repeat(40);
        assertEquals("é".repeat(31), Lexer.tokenize('"' + accented + '"').identifier(0));
    }

    @Test
    void stringConstants() {
        TokenList tokens = Lexer.tokenize("'it''s' E'a\\'b\\n\\x41\\101\\u00e9' N'nat' B'1010' X'1F' "
                + "U&'d\\0061t\\+000061' U&'d!0061t' UESCAPE '!' $$dol'lar$$ $tag$a $$ b$tag$ E'\\xC3\\xA9'");
        assertEquals(TokenKind.STRING, tokens.kind(0));
        assertEquals("it's", tokens.stringValue(0));
        assertEquals(TokenKind.ESCAPE_STRING, tokens.kind(1));
        assertEquals("a'b\nAAé", tokens.stringValue(1));
        assertEquals(TokenKind.NATIONAL_STRING, tokens.kind(2));
        assertEquals("nat", tokens.stringValue(2));
        assertEquals(TokenKind.BIT_STRING, tokens.kind(3));
        assertEquals("1010", tokens.stringValue(3));
        assertEquals(TokenKind.HEX_STRING, tokens.kind(4));
        assertEquals("1F", tokens.stringValue(4));
        assertEquals(TokenKind.UNICODE_STRING, tokens.kind(5));
        assertEquals("data", tokens.stringValue(5));
        assertEquals("dat", tokens.stringValue(6));
        assertEquals(TokenKind.DOLLAR_STRING, tokens.kind(7));
        assertEquals("dol'lar", tokens.stringValue(7));
        assertEquals("a $$ b", tokens.stringValue(8));
        assertEquals("é", tokens.stringValue(9));
        assertEquals(10, tokens.size());
    }

    @Test
    void adjacentStringsSeparatedByANewlineAreOneConstant() {
        TokenList tokens = Lexer.tokenize("SELECT 'foo'\n  'bar' -- c\n 'baz', 'x' 'y'");
        assertEquals(TokenKind.STRING, tokens.kind(1));
        assertEquals("foobarbaz", tokens.stringValue(1));
        assertEquals("'foo'\n  'bar' -- c\n 'baz'", tokens.text(1));
        assertEquals(TokenKind.COMMA, tokens.kind(2));
        // without a newline they are two constants (a syntax error for the server, not for us)
        assertEquals(TokenKind.STRING, tokens.kind(3));
        assertEquals(TokenKind.STRING, tokens.kind(4));
        TokenList escaped = Lexer.tokenize("E'a\\n'\n'\\n'");
        assertEquals(1, escaped.size());
        assertEquals("a\n\n", escaped.stringValue(0));
        // a block comment does not allow continuation
        assertEquals(2, Lexer.tokenize("'a'\n/* c */'b'").size());
    }

    @Test
    void dollarQuotesVersusParameters() {
        assertEquals("PARAMETER($1) PARAMETER($23) DOLLAR_STRING($a$x$1y$a$) DOLLAR_STRING($$$$)",
                lex("$1 $23 $a$x$1y$a$ $$$$"));
        // a dollar quote tag cannot start with a digit, and $ inside a word is part of the word
        assertEquals("IDENTIFIER(a$b$c) OTHER($) IDENTIFIER(abc) OTHER($)", lex("a$b$c $abc $"));
        // a quote inside a dollar string is just text, and a dollar tag inside a quoted string too
        assertEquals("DOLLAR_STRING($q$it's$q$) STRING('$q$')", lex("$q$it's$q$ '$q$'"));
        // nested tags
        TokenList nested = Lexer.tokenize("$fn$ BEGIN RETURN $$x$$; END $fn$");
        assertEquals(1, nested.size());
        assertEquals(" BEGIN RETURN $$x$$; END ", nested.stringValue(0));
    }

    @Test
    void numbers() {
        assertEquals("INTEGER(42) DECIMAL(3.5) DECIMAL(.5) DECIMAL(4.) DECIMAL(1e10) DECIMAL(2.5E-3) "
                        + "INTEGER(0x1F) INTEGER(0o17) INTEGER(0b1010) INTEGER(1_000_000) INTEGER(0x_FF_FF) "
                        + "DECIMAL(1_000.000_1)",
                lex("42 3.5 .5 4. 1e10 2.5E-3 0x1F 0o17 0b1010 1_000_000 0x_FF_FF 1_000.000_1"));
        // 1..10 is an integer and a "..", "1e" is a number followed by a word, "1_" is 1 and a word
        assertEquals("INTEGER(1) DOT_DOT(..) INTEGER(10) INTEGER(1) IDENTIFIER(e) INTEGER(1) IDENTIFIER(_)",
                lex("1..10 1e 1_"));
        assertEquals("INTEGER(0) IDENTIFIER(x)", lex("0x"));
        assertEquals("OPERATOR(-) INTEGER(5)", lex("-5"));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " ¦ ", quoteCharacter = '~', value = {
            "a<=b ¦ IDENTIFIER(a) OPERATOR(<=) IDENTIFIER(b)",
            "a<=>b ¦ IDENTIFIER(a) OPERATOR(<=>) IDENTIFIER(b)",
            "a!=b ¦ IDENTIFIER(a) OPERATOR(!=) IDENTIFIER(b)",
            "a<>b ¦ IDENTIFIER(a) OPERATOR(<>) IDENTIFIER(b)",
            "a||b ¦ IDENTIFIER(a) OPERATOR(||) IDENTIFIER(b)",
            "j->>'k' ¦ IDENTIFIER(j) OPERATOR(->>) STRING('k')",
            "j#>>'{a}' ¦ IDENTIFIER(j) OPERATOR(#>>) STRING('{a}')",
            "j@>'{}' ¦ IDENTIFIER(j) OPERATOR(@>) STRING('{}')",
            "a=-1 ¦ IDENTIFIER(a) OPERATOR(=) OPERATOR(-) INTEGER(1)",
            "a*-1 ¦ IDENTIFIER(a) OPERATOR(*) OPERATOR(-) INTEGER(1)",
            "a@-1 ¦ IDENTIFIER(a) OPERATOR(@-) INTEGER(1)",
            "a<-1 ¦ IDENTIFIER(a) OPERATOR(<) OPERATOR(-) INTEGER(1)",
            "a+-+b ¦ IDENTIFIER(a) OPERATOR(+) OPERATOR(-) OPERATOR(+) IDENTIFIER(b)",
            "a?-b ¦ IDENTIFIER(a) OPERATOR(?-) IDENTIFIER(b)",
            "a ? 'k' ¦ IDENTIFIER(a) OPERATOR(?) STRING('k')",
            "a*/*c*/b ¦ IDENTIFIER(a) OPERATOR(*) IDENTIFIER(b)",
            "a+--c\\nb ¦ IDENTIFIER(a) OPERATOR(+) IDENTIFIER(b)",
            "x::int8 ¦ IDENTIFIER(x) TYPECAST(::) IDENTIFIER(int8)",
            "a[1:2] ¦ IDENTIFIER(a) LEFT_BRACKET([) INTEGER(1) COLON(:) INTEGER(2) RIGHT_BRACKET(])",
            "f(a => 1) ¦ IDENTIFIER(f) LEFT_PAREN(() IDENTIFIER(a) OPERATOR(=>) INTEGER(1) RIGHT_PAREN())",
            "f(a := 1) ¦ IDENTIFIER(f) LEFT_PAREN(() IDENTIFIER(a) COLON_EQUALS(:=) INTEGER(1) RIGHT_PAREN())",
            "t.* ¦ IDENTIFIER(t) DOT(.) OPERATOR(*)",
            "a\\b ¦ IDENTIFIER(a) OTHER(\\) IDENTIFIER(b)",
    })
    void operators(String sql, String expected) {
        assertEquals(expected, lex(sql.replace("\\n", "\n")));
    }

    @Test
    void jdbcMarkersOnlyWhenAsked() {
        assertEquals("IDENTIFIER(a) OPERATOR(=) JDBC_PARAMETER(?) IDENTIFIER(AND) IDENTIFIER(b) IDENTIFIER(IN) "
                        + "LEFT_PAREN(() JDBC_PARAMETER(?) COMMA(,) JDBC_PARAMETER(?) RIGHT_PAREN())",
                lexJdbc("a = ? AND b IN (?,?)"));
        TokenList tokens = Lexer.tokenize("a = ? AND b IN (?,?)", true);
        assertEquals(1, tokens.parameterNumber(2));
        assertEquals(3, tokens.parameterNumber(9));
        // ?? is pgjdbc's escape for a literal ? operator character
        assertEquals("IDENTIFIER(j) OPERATOR(??|) JDBC_PARAMETER(?)", lexJdbc("j ??| ?"));
        // a ? inside quotes or comments is not a marker
        assertEquals("STRING('?') QUOTED_IDENTIFIER(\"?\") DOLLAR_STRING($$?$$)", lexJdbc("'?' \"?\" $$?$$ -- ?\n/* ? */"));
        assertEquals("IDENTIFIER(a) OPERATOR(=) OPERATOR(?)", lex("a = ?"));
    }

    @Test
    void parameterNumbers() {
        TokenList tokens = Lexer.tokenize("$1 $12 $99999999999");
        assertEquals(1, tokens.parameterNumber(0));
        assertEquals(12, tokens.parameterNumber(1));
        assertEquals(Integer.MAX_VALUE, tokens.parameterNumber(2));
    }

    @Test
    void comments() {
        assertEquals("IDENTIFIER(a) IDENTIFIER(b) IDENTIFIER(c)", lex("a /* x /* nested */ still */ b -- tail\nc -- end"));
        assertEquals("", lex("/**/ -- x"));
        assertEquals("IDENTIFIER(a) OPERATOR(/) IDENTIFIER(b)", lex("a / b"));
    }

    @Test
    void positionsAreSourceOffsets() {
        TokenList tokens = Lexer.tokenize("  SELECT\t\"x\" ");
        assertEquals(2, tokens.start(0));
        assertEquals(8, tokens.end(0));
        assertEquals(9, tokens.start(1));
        assertEquals(12, tokens.end(1));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
            "SELECT 'abc;                | 7  | unterminated quoted string at or near \"'abc;\"",
            "SELECT E'abc\\'             | 7  | unterminated quoted string at or near \"E'abc\\'\"",
            "SELECT \"abc                | 7  | unterminated quoted identifier at or near \"\"abc\"",
            "SELECT $$abc                | 7  | unterminated dollar-quoted string at or near \"$$abc\"",
            "SELECT $a$abc$b$            | 7  | unterminated dollar-quoted string at or near \"$a$abc$b$\"",
            "SELECT 1 /* a /* b */       | 9  | unterminated /* comment at or near \"/* a /* b */\"",
            "SELECT B'101                | 7  | unterminated bit string literal at or near \"B'101\"",
            "SELECT X'1F                 | 7  | unterminated hexadecimal string literal at or near \"X'1F\"",
            "SELECT \"\" FROM t          | 7  | zero-length delimited identifier at or near \"\"\" FROM t\"",
            "SELECT U&'x                 | 7  | unterminated quoted string at or near \"U&'x\"",
    })
    void unterminatedTokensAreErrorsWithPostgresMessages(String sql, int position, String message) {
        SqlSyntaxException error = assertThrows(SqlSyntaxException.class, () -> Lexer.tokenize(sql));
        assertEquals(position, error.position());
        assertEquals(position + 1, error.cursorPosition());
        assertEquals("42601", error.sqlState());
        assertEquals(message, error.getMessage());
    }

    @Test
    void everyPrefixOfARealStatementEitherLexesOrFailsCleanly() {
        String sql = "SELECT E'a\\'b', $q$x$q$, \"Q\"\"x\", /* c /* d */ */ 1.5e3, $1, U&'\\0041' UESCAPE '\\' -- e\n;";
        for (int i = 0; i <= sql.length(); i++) {
            String prefix = sql.substring(0, i);
            try {
                TokenList tokens = Lexer.tokenize(prefix);
                for (int t = 0; t < tokens.size(); t++) {
                    assertTrue(tokens.start(t) < tokens.end(t) && tokens.end(t) <= prefix.length(), prefix);
                    tokens.identifier(t);
                    tokens.stringValue(t);
                }
            } catch (SqlSyntaxException expected) {
                assertTrue(expected.position() < prefix.length(), prefix);
            }
        }
    }
}
