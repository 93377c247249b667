package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.CloseCursorStatement;
import io.ashlar.parser.statement.DeclareCursorStatement;
import io.ashlar.parser.statement.FetchStatement;
import io.ashlar.parser.statement.FetchStatement.Direction;
import io.ashlar.parser.statement.OtherStatement;
import io.ashlar.parser.statement.StatementBody;
import java.util.Optional;

/**
 * Parses the cursor statements:
 * <a href="https://www.postgresql.org/docs/current/sql-declare.html">DECLARE</a>,
 * <a href="https://www.postgresql.org/docs/current/sql-fetch.html">FETCH</a>,
 * <a href="https://www.postgresql.org/docs/current/sql-move.html">MOVE</a> and
 * <a href="https://www.postgresql.org/docs/current/sql-close.html">CLOSE</a>, as PostgreSQL's grammar
 * ({@code DeclareCursorStmt}, {@code FetchStmt}, {@code ClosePortalStmt}) reads them. What it cannot read
 * becomes an {@link OtherStatement} with a gap.
 */
final class CursorParser {
    private final ParseContext c;

    CursorParser(ParseContext context) {
        this.c = context;
    }

    StatementBody declare(int i, int to) {
        int j = i + 1;
        if (!c.isWord(j)) {
            return unrecognized();
        }
        String name = c.name(j++);
        boolean binary = false;
        Optional<Boolean> scroll = Optional.empty();
        while (j < to && !c.word(j, "cursor")) {
            if (c.word(j, "binary")) {
                binary = true;
                j++;
            } else if (c.word(j, "insensitive") || c.word(j, "asensitive")) {
                j++;
            } else if (c.word(j, "scroll")) {
                scroll = Optional.of(true);
                j++;
            } else if (c.word(j, "no") && c.word(j + 1, "scroll")) {
                scroll = Optional.of(false);
                j += 2;
            } else {
                return unrecognized();
            }
        }
        j++;
        boolean hold = false;
        if ((c.kw(j, Keyword.WITH) || c.word(j, "without")) && c.word(j + 1, "hold")) {
            hold = c.kw(j, Keyword.WITH);
            j += 2;
        }
        if (!c.kw(j, Keyword.FOR) || j + 1 >= to) {
            return unrecognized();
        }
        return new DeclareCursorStatement(name, binary, scroll, hold, c.range(j + 1, to));
    }

    StatementBody fetch(int i, int to, boolean move) {
        int j = i + 1;
        Direction direction = Direction.FORWARD;
        long count = 1;
        if (c.word(j, "next")) {
            j++;
        } else if (c.word(j, "prior")) {
            direction = Direction.BACKWARD;
            j++;
        } else if (c.word(j, "first")) {
            direction = Direction.ABSOLUTE;
            j++;
        } else if (c.word(j, "last")) {
            direction = Direction.ABSOLUTE;
            count = -1;
            j++;
        } else if (c.word(j, "absolute") || c.word(j, "relative")) {
            direction = c.word(j, "absolute") ? Direction.ABSOLUTE : Direction.RELATIVE;
            long[] number = signedCount(j + 1);
            if (number == null) {
                return unrecognized();
            }
            count = number[0];
            j = (int) number[1];
        } else if (c.kw(j, Keyword.ALL)) {
            count = FetchStatement.ALL;
            j++;
        } else if (c.word(j, "forward") || c.word(j, "backward")) {
            boolean backward = c.word(j, "backward");
            j++;
            if (c.kw(j, Keyword.ALL)) {
                count = FetchStatement.ALL;
                j++;
            } else {
                long[] number = signedCount(j);
                if (number != null) {
                    count = number[0];
                    j = (int) number[1];
                }
            }
            if (count < 0) {
                backward = !backward;
                count = -count;
            }
            direction = backward ? Direction.BACKWARD : Direction.FORWARD;
        } else {
            long[] number = signedCount(j);
            if (number != null) {
                count = number[0];
                j = (int) number[1];
                if (count < 0) {
                    direction = Direction.BACKWARD;
                    count = -count;
                }
            }
        }
        if (c.kw(j, Keyword.FROM) || c.kw(j, Keyword.IN)) {
            j++;
        }
        if (!c.isWord(j) || j + 1 != to) {
            return unrecognized();
        }
        return new FetchStatement(move, direction, count, c.name(j));
    }

    StatementBody close(int i, int to) {
        if (c.kw(i + 1, Keyword.ALL) && i + 2 == to) {
            return new CloseCursorStatement(Optional.empty());
        }
        if (!c.isWord(i + 1) || i + 2 != to) {
            return unrecognized();
        }
        return new CloseCursorStatement(Optional.of(c.name(i + 1)));
    }

    /** A count with an optional sign at {@code j}: {value, index after it}, or null when there is none. */
    private long[] signedCount(int j) {
        boolean negative = false;
        int k = j;
        if (c.op(k, "-") || c.op(k, "+")) {
            negative = c.op(k, "-");
            k++;
        }
        if (!c.is(k, TokenKind.INTEGER)) {
            return null;
        }
        long value;
        try {
            value = Long.parseLong(c.tokens.text(k));
        } catch (NumberFormatException e) {
            return null;
        }
        return new long[] {negative ? -value : value, k + 1};
    }

    private StatementBody unrecognized() {
        c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        return new OtherStatement();
    }
}
