package io.ashlar.parser.statement;

/**
 * {@code DISCARD ALL | PLANS | SEQUENCES | TEMP}.
 *
 * @param target what is discarded: {@code all}, {@code plans}, {@code sequences} or {@code temp}
 *               ({@code TEMPORARY} included)
 */
public record DiscardStatement(String target) implements StatementBody {
}
