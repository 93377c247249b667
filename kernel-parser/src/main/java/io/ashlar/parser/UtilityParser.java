package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.DeallocateStatement;
import io.ashlar.parser.statement.DiscardStatement;
import io.ashlar.parser.statement.ExecuteStatement;
import io.ashlar.parser.statement.IsolationLevel;
import io.ashlar.parser.statement.OtherStatement;
import io.ashlar.parser.statement.PrepareStatement;
import io.ashlar.parser.statement.ResetStatement;
import io.ashlar.parser.statement.SetStatement;
import io.ashlar.parser.statement.ShowStatement;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.StatementBody;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.parser.statement.TransactionCommand;
import io.ashlar.parser.statement.TransactionStatement;
import io.ashlar.parser.statement.VariableScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Parses the statements a proxy handles itself or broadcasts: transaction control
 * (<a href="https://www.postgresql.org/docs/current/sql-begin.html">BEGIN</a>,
 * <a href="https://www.postgresql.org/docs/current/sql-set-transaction.html">SET TRANSACTION</a>, ...),
 * <a href="https://www.postgresql.org/docs/current/sql-set.html">SET</a>, RESET, SHOW,
 * <a href="https://www.postgresql.org/docs/current/sql-prepare.html">PREPARE</a>, EXECUTE,
 * DEALLOCATE, DISCARD, and the tables of LOCK, VACUUM and ANALYZE.
 */
final class UtilityParser {
    private final ParseContext c;

    UtilityParser(ParseContext context) {
        this.c = context;
    }

    // ---- transactions

    TransactionStatement begin(int i, int to) {
        int j = i + 1;
        if (c.kw(j, Keyword.WORK) || c.kw(j, Keyword.TRANSACTION)) {
            j++;
        }
        return modes(TransactionCommand.BEGIN, j, to);
    }

    TransactionStatement start(int i, int to) {
        if (!c.kw(i + 1, Keyword.TRANSACTION)) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        return modes(TransactionCommand.START_TRANSACTION, i + 2, to);
    }

    /** Transaction modes from {@code i}: isolation level, access mode, deferrable, separated by optional commas. */
    private TransactionStatement modes(TransactionCommand command, int i, int to) {
        Optional<IsolationLevel> isolation = Optional.empty();
        Optional<Boolean> readOnly = Optional.empty();
        Optional<Boolean> deferrable = Optional.empty();
        int j = i;
        while (j < to) {
            if (c.is(j, TokenKind.COMMA)) {
                j++;
            } else if (c.kw(j, Keyword.ISOLATION) && c.kw(j + 1, Keyword.LEVEL)) {
                j += 2;
                if (c.kw(j, Keyword.SERIALIZABLE)) {
                    isolation = Optional.of(IsolationLevel.SERIALIZABLE);
                    j++;
                } else if (c.kw(j, Keyword.REPEATABLE) && c.kw(j + 1, Keyword.READ)) {
                    isolation = Optional.of(IsolationLevel.REPEATABLE_READ);
                    j += 2;
                } else if (c.kw(j, Keyword.READ) && c.kw(j + 1, Keyword.COMMITTED)) {
                    isolation = Optional.of(IsolationLevel.READ_COMMITTED);
                    j += 2;
                } else if (c.kw(j, Keyword.READ) && c.kw(j + 1, Keyword.UNCOMMITTED)) {
                    isolation = Optional.of(IsolationLevel.READ_UNCOMMITTED);
                    j += 2;
                } else {
                    break;
                }
            } else if (c.kw(j, Keyword.READ) && c.kw(j + 1, Keyword.ONLY)) {
                readOnly = Optional.of(true);
                j += 2;
            } else if (c.kw(j, Keyword.READ) && c.kw(j + 1, Keyword.WRITE)) {
                readOnly = Optional.of(false);
                j += 2;
            } else if (c.kw(j, Keyword.DEFERRABLE)) {
                deferrable = Optional.of(true);
                j++;
            } else if (c.kw(j, Keyword.NOT) && c.kw(j + 1, Keyword.DEFERRABLE)) {
                deferrable = Optional.of(false);
                j += 2;
            } else {
                break;
            }
        }
        if (j < to) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        return new TransactionStatement(command, isolation, readOnly, deferrable, false, Optional.empty());
    }

    /** COMMIT / END [WORK | TRANSACTION] [AND [NO] CHAIN], or COMMIT PREPARED 'gid'. */
    TransactionStatement commit(int i, int to) {
        if (c.kw(i, Keyword.COMMIT) && c.kw(i + 1, Keyword.PREPARED)) {
            return named(TransactionCommand.COMMIT_PREPARED, i + 2, to);
        }
        return finish(TransactionCommand.COMMIT, i + 1, to);
    }

    /** ROLLBACK / ABORT, ROLLBACK TO [SAVEPOINT] name, or ROLLBACK PREPARED 'gid'. */
    TransactionStatement rollback(int i, int to) {
        int j = i + 1;
        if (c.kw(i, Keyword.ROLLBACK) && c.kw(j, Keyword.PREPARED)) {
            return named(TransactionCommand.ROLLBACK_PREPARED, j + 1, to);
        }
        if (c.kw(j, Keyword.WORK) || c.kw(j, Keyword.TRANSACTION)) {
            j++;
        }
        if (c.kw(j, Keyword.TO)) {
            j++;
            if (c.kw(j, Keyword.SAVEPOINT)) {
                j++;
            }
            return named(TransactionCommand.ROLLBACK_TO_SAVEPOINT, j, to);
        }
        return finish(TransactionCommand.ROLLBACK, j, to);
    }

    private TransactionStatement finish(TransactionCommand command, int i, int to) {
        int j = i;
        if (c.kw(j, Keyword.WORK) || c.kw(j, Keyword.TRANSACTION)) {
            j++;
        }
        boolean chain = false;
        if (c.kw(j, Keyword.AND) && c.kw(j + 1, Keyword.CHAIN)) {
            chain = true;
            j += 2;
        } else if (c.kw(j, Keyword.AND) && c.kw(j + 1, Keyword.NO) && c.kw(j + 2, Keyword.CHAIN)) {
            j += 3;
        }
        if (j < to) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        return new TransactionStatement(command, Optional.empty(), Optional.empty(), Optional.empty(), chain,
                Optional.empty());
    }

    TransactionStatement savepoint(int i, int to) {
        return named(TransactionCommand.SAVEPOINT, i + 1, to);
    }

    TransactionStatement release(int i, int to) {
        int j = i + 1;
        if (c.kw(j, Keyword.SAVEPOINT)) {
            j++;
        }
        return named(TransactionCommand.RELEASE_SAVEPOINT, j, to);
    }

    /** A command with a savepoint name (identifier) or a transaction id (string) at {@code i}. */
    private TransactionStatement named(TransactionCommand command, int i, int to) {
        Optional<String> name = Optional.empty();
        if (i < to && (c.isWord(i) || c.tokens.kind(i).isCharacterString())) {
            name = Optional.of(c.isWord(i) ? c.name(i) : c.tokens.stringValue(i));
        }
        if (name.isEmpty() || i + 1 < to) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        return new TransactionStatement(command, Optional.empty(), Optional.empty(), Optional.empty(), false, name);
    }

    // ---- SET, RESET, SHOW

    /** SET in all its forms, SET TRANSACTION and SET SESSION CHARACTERISTICS included. */
    StatementBody set(int i, int to) {
        int j = i + 1;
        if (c.kw(j, Keyword.TRANSACTION)) {
            if (c.kw(j + 1, Keyword.SNAPSHOT)) {
                return named(TransactionCommand.SET_TRANSACTION, j + 2, to);
            }
            return modes(TransactionCommand.SET_TRANSACTION, j + 1, to);
        }
        if (c.kw(j, Keyword.SESSION) && c.kw(j + 1, Keyword.CHARACTERISTICS) && c.kw(j + 2, Keyword.AS)
                && c.kw(j + 3, Keyword.TRANSACTION)) {
            return modes(TransactionCommand.SET_SESSION_CHARACTERISTICS, j + 4, to);
        }
        VariableScope scope = VariableScope.SESSION;
        if (c.kw(j, Keyword.LOCAL)) {
            scope = VariableScope.LOCAL;
            j++;
        } else if (c.kw(j, Keyword.SESSION) && !c.kw(j + 1, Keyword.AUTHORIZATION)) {
            j++;
        }
        String name;
        int value;
        if (c.kw(j, Keyword.TIME) && c.kw(j + 1, Keyword.ZONE)) {
            name = "timezone";
            value = j + 2;
            if (value + 1 == to && (c.kw(value, Keyword.LOCAL) || c.kw(value, Keyword.DEFAULT))) {
                return new SetStatement(scope, name, List.of(), c.range(value, to), true);
            }
        } else if (c.kw(j, Keyword.SESSION) && c.kw(j + 1, Keyword.AUTHORIZATION)) {
            name = "session_authorization";
            value = j + 2;
        } else if (c.kw(j, Keyword.NAMES)) {
            name = "client_encoding";
            value = j + 1;
        } else if (c.kw(j, Keyword.SCHEMA)) {
            name = "search_path";
            value = j + 1;
        } else if (c.kw(j, Keyword.ROLE)) {
            name = "role";
            value = j + 1;
            if (value + 1 == to && c.kw(value, Keyword.NONE_KEYWORD)) {
                return new SetStatement(scope, name, List.of(), c.range(value, to), true);
            }
        } else if (c.word(j, "xml") && c.word(j + 1, "option")) {
            name = "xmloption";
            value = j + 2;
        } else if (c.word(j, "constraints")) {
            name = "constraints";
            value = j + 1;
        } else {
            int k = j;
            StringBuilder dotted = new StringBuilder();
            while (k < to && c.isWord(k)) {
                dotted.append(c.name(k));
                if (!c.is(k + 1, TokenKind.DOT)) {
                    k++;
                    break;
                }
                dotted.append('.');
                k += 2;
            }
            if (dotted.isEmpty()) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return new OtherStatement();
            }
            name = dotted.toString();
            value = k;
            if (c.kw(value, Keyword.TO) || c.op(value, "=")) {
                value++;
            } else {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            }
        }
        if (value + 1 == to && c.kw(value, Keyword.DEFAULT)) {
            return new SetStatement(scope, name, List.of(), c.range(value, to), true);
        }
        List<String> values = new ArrayList<>(1);
        for (int[] item : c.splitCommas(value, to)) {
            values.add(settingValue(item[0], item[1]));
        }
        return new SetStatement(scope, name, values, c.range(value, to), false);
    }

    /** One value of a SET list: a string's content, a name normalised, a number with its sign, else the text. */
    private String settingValue(int from, int to) {
        if (to - from == 1) {
            TokenKind kind = c.tokens.kind(from);
            if (kind.isCharacterString()) {
                return c.tokens.stringValue(from);
            }
            if (kind.isIdentifier()) {
                return c.name(from);
            }
        }
        return c.text(from, to);
    }

    ResetStatement reset(int i, int to) {
        return new ResetStatement(variableName(i + 1, to));
    }

    ShowStatement show(int i, int to) {
        return new ShowStatement(variableName(i + 1, to));
    }

    private String variableName(int i, int to) {
        if (c.kw(i, Keyword.TIME) && c.kw(i + 1, Keyword.ZONE)) {
            return "timezone";
        }
        if (c.kw(i, Keyword.SESSION) && c.kw(i + 1, Keyword.AUTHORIZATION)) {
            return "session_authorization";
        }
        if (c.kw(i, Keyword.TRANSACTION) && c.kw(i + 1, Keyword.ISOLATION)) {
            return "transaction_isolation";
        }
        if (c.kw(i, Keyword.ALL)) {
            return "all";
        }
        StringBuilder result = new StringBuilder();
        int k = i;
        while (k < to && c.isWord(k)) {
            result.append(c.name(k));
            if (!c.is(k + 1, TokenKind.DOT)) {
                k++;
                break;
            }
            result.append('.');
            k += 2;
        }
        if (result.isEmpty() || k < to) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        return result.toString();
    }

    // ---- PREPARE, EXECUTE, DEALLOCATE, DISCARD

    StatementBody prepare(int i, int to) {
        if (c.kw(i + 1, Keyword.TRANSACTION)) {
            return named(TransactionCommand.PREPARE_TRANSACTION, i + 2, to);
        }
        int j = i + 1;
        if (!c.isWord(j)) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return new OtherStatement();
        }
        String name = c.name(j);
        SourceRange nameRange = c.range(j, j + 1);
        j++;
        List<String> types = new ArrayList<>(0);
        if (c.is(j, TokenKind.LEFT_PAREN)) {
            int close = c.close(j);
            if (close < 0) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return new OtherStatement();
            }
            for (int[] item : c.splitCommas(j + 1, close)) {
                types.add(c.typeText(item[0], item[1]));
            }
            j = close + 1;
        }
        if (!c.kw(j, Keyword.AS)) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return new PrepareStatement(name, nameRange, types, SourceRange.at(c.endOffset()));
        }
        return new PrepareStatement(name, nameRange, types, c.range(j + 1, to));
    }

    ExecuteStatement execute(int i, int to) {
        int j = i + 1;
        String name = c.isWord(j) ? c.name(j) : "";
        List<SourceRange> arguments = new ArrayList<>(0);
        if (c.is(j + 1, TokenKind.LEFT_PAREN) && c.close(j + 1) > j) {
            for (int[] item : c.splitCommas(j + 2, c.close(j + 1))) {
                arguments.add(c.range(item[0], item[1]));
                c.scanExpression(item[0], item[1], 0);
            }
        }
        if (name.isEmpty()) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        return new ExecuteStatement(name, arguments);
    }

    DeallocateStatement deallocate(int i, int to) {
        int j = i + 1;
        if (c.kw(j, Keyword.PREPARE)) {
            j++;
        }
        if (c.kw(j, Keyword.ALL)) {
            return new DeallocateStatement(Optional.empty());
        }
        if (!c.isWord(j)) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return new DeallocateStatement(Optional.empty());
        }
        return new DeallocateStatement(Optional.of(c.name(j)));
    }

    DiscardStatement discard(int i, int to) {
        int j = i + 1;
        if (!c.isWord(j)) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return new DiscardStatement("");
        }
        String target = c.tokens.text(j).toLowerCase(Locale.ROOT);
        return new DiscardStatement(target.equals("temporary") ? "temp" : target);
    }

    // ---- tables of other commands

    /** LOCK [TABLE] [ONLY] name [*] [, ...] [IN mode MODE] [NOWAIT]. */
    void lock(int i, int to) {
        int j = i + 1;
        if (c.kw(j, Keyword.TABLE)) {
            j++;
        }
        tableList(j, to);
    }

    /** VACUUM / ANALYZE [(options)] [FULL | FREEZE | VERBOSE | ANALYZE ...] [table [(columns)] [, ...]]. */
    void maintenance(int i, int to) {
        int j = i + 1;
        if (c.is(j, TokenKind.LEFT_PAREN)) {
            j = c.skip(j, to);
        }
        while (c.kw(j, Keyword.FULL) || c.kw(j, Keyword.FREEZE) || c.kw(j, Keyword.VERBOSE)
                || c.kw(j, Keyword.ANALYZE) || c.kw(j, Keyword.ANALYSE)) {
            j++;
        }
        tableList(j, to);
    }

    private void tableList(int from, int to) {
        int j = from;
        while (j < to) {
            if (c.kw(j, Keyword.ONLY)) {
                j++;
            }
            ParseContext.QualifiedName name = c.qualifiedName(j, to);
            if (name == null) {
                return;
            }
            c.addTable(name, Optional.empty(), TableRole.FROM, 0);
            j = name.next();
            if (c.op(j, "*")) {
                j++;
            }
            if (c.is(j, TokenKind.LEFT_PAREN)) {
                j = c.skip(j, to);
            }
            if (!c.is(j, TokenKind.COMMA)) {
                return;
            }
            j++;
        }
    }
}
