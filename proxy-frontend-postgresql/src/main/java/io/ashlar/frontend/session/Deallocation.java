package io.ashlar.frontend.session;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.StatementSplitter;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DeallocateStatement;
import java.util.List;

/**
 * SQL {@code DEALLOCATE} of a statement the client prepared with the protocol's Parse. PostgreSQL keeps both kinds in
 * one namespace, and drivers drop their protocol statements so: PHP's PDO (what Laravel runs, with emulated prepares
 * off) and Perl's DBD::Pg send {@code DEALLOCATE pdo_stmt_00000001} as a simple query when a statement handle goes.
 * The proxy keeps a session's protocol statements itself (a pooled session's under other names on whichever
 * connection it uses), so such a DEALLOCATE is answered where they are kept; the backend would say 26000, and a
 * transaction block it ran in would fail.
 */
public final class Deallocation {

    private Deallocation() {
    }

    /**
     * The query string as one {@code DEALLOCATE [PREPARE] name | ALL} and nothing else (its name empty for ALL); null
     * for anything else, text that does not read included (the backend answers it).
     */
    public static DeallocateStatement of(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        if (!sql.regionMatches(true, i, "deallocate", 0, 10)) {
            return null;
        }
        try {
            List<StatementRange> ranges = StatementSplitter.split(sql);
            if (ranges.size() != 1) {
                return null;
            }
            AnalyzedStatement statement = StatementAnalyzer.analyze(ranges.get(0).text(sql));
            return statement.isComplete() && statement.body() instanceof DeallocateStatement deallocate ? deallocate : null;
        } catch (SqlSyntaxException e) {
            return null;
        }
    }
}
