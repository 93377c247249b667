package io.ashlar.parser.statement;

import java.util.OptionalInt;

/**
 * An index or constraint name in DDL, which rewriting suffixes with the actual table's name so that
 * the per-shard copies do not collide within one schema (as ShardingSphere's IndexToken and
 * ConstraintToken do).
 *
 * @param name       the normalised name
 * @param range      source range of the whole, possibly schema-qualified, name
 * @param nameRange  source range of the last name token
 * @param constraint whether this is a constraint name ({@code CONSTRAINT pk PRIMARY KEY ...}) rather than an index
 * @param table      index into {@link AnalyzedStatement#tables()} of the table it belongs to, when the statement says
 */
public record IndexReference(TableName name, SourceRange range, SourceRange nameRange, boolean constraint,
                             OptionalInt table) {
}
