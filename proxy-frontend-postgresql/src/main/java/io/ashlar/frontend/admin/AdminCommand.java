package io.ashlar.frontend.admin;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;

/**
 * The proxy's own commands, answered by the proxy on any logical database's connection: pgbouncer's admin console
 * ({@code SHOW POOLS}, {@code SHOW CLIENTS}, {@code SHOW SERVERS}, {@code SHOW STATS}) and ShardingSphere's DistSQL
 * that reads rules and routes ({@code SHOW STORAGE UNITS} and 5.1's {@code SHOW SCHEMA RESOURCES} /
 * {@code SHOW RESOURCES}, {@code SHOW SHARDING TABLE RULES}, {@code SHOW SHARDING TABLE RULE t}, {@code SHOW SHARDING
 * ALGORITHMS}, {@code PREVIEW statement}). Everything else that starts with {@code SHOW} is PostgreSQL's SHOW of a
 * setting and goes to the backend.
 *
 * @see <a href="https://www.pgbouncer.org/usage.html#admin-console">pgbouncer's admin console</a>
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/distsql/syntax/rql/">ShardingSphere RQL</a>
 */
public sealed interface AdminCommand {

    /** Whether a user who is no admin may run it: the DistSQL that only reads rules, as ShardingSphere lets every user. */
    boolean openToEveryUser();

    /** pgbouncer's SHOW POOLS. */
    record ShowPools() implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return false;
        }
    }

    /** pgbouncer's SHOW CLIENTS. */
    record ShowClients() implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return false;
        }
    }

    /** pgbouncer's SHOW SERVERS. */
    record ShowServers() implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return false;
        }
    }

    /** pgbouncer's SHOW STATS. */
    record ShowStats() implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return false;
        }
    }

    /** {@code SHOW STORAGE UNITS [FROM db]} (5.1: {@code SHOW SCHEMA RESOURCES}, {@code SHOW RESOURCES}); null: the session's. */
    record ShowStorageUnits(String database) implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return true;
        }
    }

    /** {@code SHOW SHARDING TABLE RULES [FROM db]}, {@code SHOW SHARDING TABLE RULE t [FROM db]}; table null for all. */
    record ShowShardingTableRules(String table, String database) implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return true;
        }
    }

    /** {@code SHOW SHARDING ALGORITHMS [FROM db]}. */
    record ShowShardingAlgorithms(String database) implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return true;
        }
    }

    /** {@code PREVIEW statement}: where the statement would go and as what, without running it. */
    record Preview(String statement) implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return true;
        }
    }

    /** Admin syntax that is not a command the proxy knows: answered with 42601 rather than sent to a backend. */
    record Unknown(String sql) implements AdminCommand {
        @Override
        public boolean openToEveryUser() {
            return true;
        }
    }

    /**
     * Whether the text may be an admin command: a look at its first letters, cheap enough for every simple query
     * (statements starting otherwise, SELECT among them, are not looked at further).
     */
    static boolean mayBe(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return sql.regionMatches(true, i, "show", 0, 4) || sql.regionMatches(true, i, "preview", 0, 7);
    }

    private static boolean startsWithPreview(String sql) {
        int i = 0;
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return sql.regionMatches(true, i, "preview", 0, 7);
    }

    /** The admin command the text is, or null when it is none (PostgreSQL's {@code SHOW setting}, or anything else). */
    static AdminCommand parse(String sql) {
        if (!mayBe(sql)) {
            return null;
        }
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            // PostgreSQL's SHOW of a setting: the backend words the error as PostgreSQL does.
            return startsWithPreview(sql) ? new Unknown(sql) : null;
        }
        int end = tokens.size();
        while (end > 0 && tokens.is(end - 1, TokenKind.SEMICOLON)) {
            end--;
        }
        if (word(tokens, 0, "preview")) {
            if (end < 2) {
                return new Unknown(sql);
            }
            String statement = sql.substring(tokens.start(1), tokens.end(end - 1));
            return new Preview(statement);
        }
        if (!word(tokens, 0, "show") || end < 2) {
            return null;
        }
        if (end == 2) {
            if (word(tokens, 1, "pools")) {
                return new ShowPools();
            }
            if (word(tokens, 1, "clients")) {
                return new ShowClients();
            }
            if (word(tokens, 1, "servers")) {
                return new ShowServers();
            }
            if (word(tokens, 1, "stats")) {
                return new ShowStats();
            }
        }
        if (word(tokens, 1, "storage") || word(tokens, 1, "resources") || word(tokens, 1, "sharding")
                || word(tokens, 1, "schema") && word(tokens, 2, "resources")) {
            AdminCommand result = distSql(tokens, end);
            return result != null ? result : new Unknown(sql);
        }
        if (end > 2 && (word(tokens, 1, "pools") || word(tokens, 1, "clients") || word(tokens, 1, "servers")
                || word(tokens, 1, "stats"))) {
            return new Unknown(sql);
        }
        return null;
    }

    private static AdminCommand distSql(TokenList tokens, int end) {
        int i;
        if (word(tokens, 1, "storage") && word(tokens, 2, "units")) {
            i = 3;
        } else if (word(tokens, 1, "resources")) {
            i = 2;
        } else if (word(tokens, 1, "schema") && word(tokens, 2, "resources")) {
            i = 3;
        } else if (word(tokens, 1, "sharding") && word(tokens, 2, "table") && word(tokens, 3, "rules")) {
            i = 4;
            String database = from(tokens, i, end);
            return database == null && i != end ? null : new ShowShardingTableRules(null, database);
        } else if (word(tokens, 1, "sharding") && word(tokens, 2, "table") && word(tokens, 3, "rule") && end > 4
                && tokens.kind(4).isIdentifier()) {
            String table = tokens.identifier(4);
            i = 5;
            String database = from(tokens, i, end);
            return database == null && i != end ? null : new ShowShardingTableRules(table, database);
        } else if (word(tokens, 1, "sharding") && word(tokens, 2, "algorithms")) {
            i = 3;
            String database = from(tokens, i, end);
            return database == null && i != end ? null : new ShowShardingAlgorithms(database);
        } else {
            return null;
        }
        String database = from(tokens, i, end);
        return database == null && i != end ? null : new ShowStorageUnits(database);
    }

    /** {@code FROM db} at {@code i} ending the statement: the database, else null. */
    private static String from(TokenList tokens, int i, int end) {
        if (end == i + 2 && word(tokens, i, "from") && tokens.kind(i + 1).isIdentifier()) {
            return tokens.identifier(i + 1);
        }
        return null;
    }

    private static boolean word(TokenList tokens, int i, String word) {
        return i < tokens.size() && tokens.is(i, TokenKind.IDENTIFIER) && tokens.textEqualsIgnoreCase(i, word);
    }
}
