package io.ashlar.parser.statement;

/**
 * The kind-specific part of an {@link AnalyzedStatement}. Switch over it:
 * <pre>{@code
 * switch (statement.body()) {
 *     case SelectStatement select -> ...
 *     case InsertStatement insert -> ...
 *     default -> ...
 * }
 * }</pre>
 */
public sealed interface StatementBody
        permits SelectStatement, InsertStatement, UpdateStatement, DeleteStatement, MergeStatement,
        DdlStatement, CopyStatement, TransactionStatement, SetStatement, ResetStatement, ShowStatement,
        PrepareStatement, ExecuteStatement, DeallocateStatement, DiscardStatement, DeclareCursorStatement,
        FetchStatement, CloseCursorStatement, OtherStatement {
}
