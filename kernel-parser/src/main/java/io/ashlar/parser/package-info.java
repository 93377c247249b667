/**
 * SQL analysis for the sharding kernel: {@link io.ashlar.parser.StatementAnalyzer} turns one SQL
 * text into an immutable {@link io.ashlar.parser.statement.AnalyzedStatement}, computed once per
 * text and cached by the caller; {@link io.ashlar.parser.StatementPrinter} describes one as text.
 *
 * <p>The lexer and the Simple Query statement splitter are in {@link io.ashlar.parser.lexer}; the
 * model is in {@link io.ashlar.parser.statement}. This module depends on the JDK only.
 */
package io.ashlar.parser;
