package io.ashlar.parser;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import java.util.Set;

/**
 * The {@code DO} block that migration tools (Prisma, Drizzle, Knex) write to create an object only when it is not there:
 * <pre>
 * DO $$ BEGIN
 *     CREATE TYPE status AS ENUM ('new', 'done');
 * EXCEPTION WHEN duplicate_object THEN null;
 * END $$;
 * </pre>
 * Its body does nothing but create types, domains, schemas, extensions or collations, each of which the proxy makes on
 * every data source (and the catalog database) when written as plain DDL; so does the block.
 *
 * @see <a href="https://www.postgresql.org/docs/current/plpgsql-control-structures.html#PLPGSQL-ERROR-TRAPPING">Trapping Errors</a>
 */
public final class GuardedDoBlock {

    private static final Set<String> OBJECTS = Set.of("type", "domain", "schema", "extension", "collation");

    private GuardedDoBlock() {
    }

    /**
     * Whether {@code sql} is {@code DO [LANGUAGE plpgsql] 'body' [LANGUAGE plpgsql]} whose body is {@code BEGIN}, one or more
     * {@code CREATE TYPE|DOMAIN|SCHEMA|EXTENSION|COLLATION ...;}, {@code EXCEPTION WHEN duplicate_object THEN null;} and
     * {@code END}.
     */
    public static boolean createsObjectsOnly(String sql) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return false;
        }
        int n = tokens.size();
        while (n > 0 && tokens.is(n - 1, TokenKind.SEMICOLON)) {
            n--;
        }
        if (n < 2 || !tokens.textEqualsIgnoreCase(0, "do")) {
            return false;
        }
        int i = 1;
        if (isLanguage(tokens, i, n)) {
            i += 2;
        }
        if (i >= n || !tokens.kind(i).isCharacterString()) {
            return false;
        }
        String body = tokens.stringValue(i);
        i++;
        if (isLanguage(tokens, i, n)) {
            i += 2;
        }
        return i == n && isGuardedBody(body);
    }

    private static boolean isLanguage(TokenList tokens, int i, int n) {
        return i + 1 < n && tokens.textEqualsIgnoreCase(i, "language") && tokens.identifier(i + 1).equals("plpgsql");
    }

    private static boolean isGuardedBody(String body) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(body);
        } catch (SqlSyntaxException e) {
            return false;
        }
        int n = tokens.size();
        while (n > 0 && tokens.is(n - 1, TokenKind.SEMICOLON)) {
            n--;
        }
        if (n == 0 || !tokens.textEqualsIgnoreCase(0, "begin") || !tokens.textEqualsIgnoreCase(n - 1, "end")) {
            return false;
        }
        int i = 1;
        int creates = 0;
        while (i < n && tokens.textEqualsIgnoreCase(i, "create")) {
            if (i + 1 >= n || !OBJECTS.contains(tokens.identifier(i + 1).toLowerCase(java.util.Locale.ROOT))
                    || tokens.kind(i + 1) != TokenKind.IDENTIFIER) {
                return false;
            }
            int end = i + 2;
            while (end < n && !tokens.is(end, TokenKind.SEMICOLON)) {
                if (tokens.is(end, TokenKind.IDENTIFIER) && tokens.textEqualsIgnoreCase(end, "create")) {
                    return false; // CREATE SCHEMA s CREATE TABLE ...: a schema element
                }
                end++;
            }
            if (end >= n) {
                return false;
            }
            creates++;
            i = end + 1;
        }
        // EXCEPTION WHEN duplicate_object THEN null ; END
        return creates > 0 && i + 7 == n && tokens.textEqualsIgnoreCase(i, "exception") && tokens.textEqualsIgnoreCase(i + 1, "when")
                && tokens.identifier(i + 2).equals("duplicate_object") && tokens.textEqualsIgnoreCase(i + 3, "then")
                && tokens.textEqualsIgnoreCase(i + 4, "null") && tokens.is(i + 5, TokenKind.SEMICOLON);
    }
}
