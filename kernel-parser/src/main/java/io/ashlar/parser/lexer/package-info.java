/**
 * PostgreSQL's lexical structure
 * (<a href="https://www.postgresql.org/docs/current/sql-syntax-lexical.html">4.1</a>) without
 * allocation per token: {@link io.ashlar.parser.lexer.Lexer} produces a
 * {@link io.ashlar.parser.lexer.TokenList} of (kind, start, end) over the source string, and
 * {@link io.ashlar.parser.lexer.StatementSplitter} splits a Simple Query string into statements.
 * Lexical errors are {@link io.ashlar.parser.lexer.SqlSyntaxException} (SQLSTATE 42601) with
 * PostgreSQL's own message and position.
 */
package io.ashlar.parser.lexer;
