package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import java.util.Locale;
import java.util.Optional;

/**
 * A {@code CREATE [OR REPLACE] FUNCTION | PROCEDURE} on a sharded database with several data sources, where it is
 * made on every one of them. PostgreSQL checks a body at creation ({@code check_function_bodies}): a LANGUAGE sql
 * body's statements are parsed and their tables looked up. The data sources do not hold the same tables: a single
 * table is on one of them, and a sharded table is under its logical name on none. So the body is checked where the
 * function's calls run, on the default data source (which holds the single tables that statements naming no rule's
 * table reach), and the others make the function without checking its body ({@link #UNCHECKED}, ahead of the CREATE
 * in the statement's transaction), as {@code pg_restore} does: a wrong body fails once, with PostgreSQL's error, and,
 * the CREATE being one transaction over the data sources, is made nowhere.
 *
 * <p>A SQL-standard body ({@code BEGIN ATOMIC ... END}, {@code RETURN expression}) is parsed at creation whatever the
 * setting says: a data source without its tables cannot hold it, and the statement is refused by the function's name
 * with the way out (a string body). A body whose table is a sharded one is refused by name too: its 42P01 said the
 * table did not exist.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-createfunction.html">CREATE FUNCTION</a>
 * @see <a href="https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-CHECK-FUNCTION-BODIES">check_function_bodies</a>
 */
final class RoutineDefinition {

    /**
     * Sent before the CREATE to the data sources that do not check the body. It lasts until the transaction the
     * statement runs in ends (the implicit transaction of a CREATE outside a block, else the client's block), never
     * on the pooled connection after it; within a block, only later CREATE FUNCTION statements there could see it,
     * and they are sent the same.
     */
    static final String UNCHECKED = "SET LOCAL check_function_bodies = off";

    private final String kind;
    private final String name;
    private final boolean standardBody;

    private RoutineDefinition(String kind, String name, boolean standardBody) {
        this.kind = kind;
        this.name = name;
        this.standardBody = standardBody;
    }

    /** The statement's routine definition; empty for any other statement. */
    static Optional<RoutineDefinition> of(AnalyzedStatement statement) {
        if (!(statement.body() instanceof DdlStatement ddl) || ddl.kind() != DdlKind.CREATE_OTHER
                || !ddl.objectType().equals("function") && !ddl.objectType().equals("procedure")) {
            return Optional.empty();
        }
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(statement.sql());
        } catch (SqlSyntaxException e) {
            return Optional.empty();
        }
        int n = tokens.size();
        int i = 0;
        while (i < n && !tokens.textEqualsIgnoreCase(i, ddl.objectType())) {
            i++;
        }
        StringBuilder name = new StringBuilder();
        for (i++; i < n && (tokens.kind(i).isIdentifier() || tokens.kind(i) == TokenKind.DOT); i++) {
            name.append(tokens.text(i));
        }
        boolean standard = false;
        int depth = 0;
        for (; i < n && !standard; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN) {
                depth++;
            } else if (kind == TokenKind.RIGHT_PAREN) {
                depth--;
            } else if (depth == 0 && kind == TokenKind.IDENTIFIER) {
                standard = tokens.textEqualsIgnoreCase(i, "return")
                        || tokens.textEqualsIgnoreCase(i, "begin") && i + 1 < n && tokens.textEqualsIgnoreCase(i + 1, "atomic");
            }
        }
        return Optional.of(new RoutineDefinition(ddl.objectType().toUpperCase(Locale.ROOT), name.toString(), standard));
    }

    /**
     * The error the client gets for the checking data source's: a body reading a sharded table is refused by name
     * (0A000), any other error is PostgreSQL's own.
     */
    ErrorFields checked(ErrorFields error, ShardingRules rules) {
        String table = missingRelation(error);
        if (table != null && rules.find(table).orElse(null) instanceof ShardingTable) {
            return ErrorFields.error("0A000", "CREATE " + kind + " " + name + " reading sharded table " + table + " is not supported",
                    "A routine's body runs on one data source as it is written, and no data source has a table named " + table
                    + ", only its actual tables. Run the body's statements through the proxy instead.");
        }
        return error;
    }

    /**
     * The error the client gets when the checking data source made the routine and {@code dataSource}, which did not
     * check it, failed: for a SQL-standard body it could not parse (its tables, columns or functions are not there)
     * the statement is refused by name (0A000); any other error is the data source's own.
     */
    ErrorFields unchecked(ErrorFields error, String dataSource) {
        if (!standardBody || error.sqlState() == null || !error.sqlState().startsWith("42")) {
            return error;
        }
        return ErrorFields.error("0A000", "CREATE " + kind + " " + name + " with a SQL-standard body (BEGIN ATOMIC or RETURN) that data source "
                + dataSource + " cannot parse (" + error.message() + ") is not supported",
                "PostgreSQL parses such a body where the routine is created, and a routine is created on every data source. "
                + "Write the body as a string, LANGUAGE sql AS $$ ... $$: the default data source checks it, the others keep it unparsed.");
    }

    /** The table a 42P01 {@code relation "name" does not exist} names, without its schema; null for another error. */
    private static String missingRelation(ErrorFields error) {
        String message = error.message();
        if (!"42P01".equals(error.sqlState()) || message == null || !message.startsWith("relation \"")) {
            return null;
        }
        int close = message.indexOf('"', 10);
        if (close < 0) {
            return null;
        }
        String qualified = message.substring(10, close);
        return qualified.substring(qualified.lastIndexOf('.') + 1);
    }
}
