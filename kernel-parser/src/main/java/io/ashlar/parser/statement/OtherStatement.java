package io.ashlar.parser.statement;

/**
 * Any statement the analyzer does not model (EXPLAIN, CALL, DO, LOCK, VACUUM, GRANT, COMMENT, ...),
 * and the empty statement. Tables it names are recorded where the analyzer knows where to look (LOCK,
 * VACUUM, ANALYZE).
 */
public record OtherStatement() implements StatementBody {
}
