package io.ashlar.parser.statement;

/** Aggregates a merger can combine from per-shard results (AVG through derived SUM and COUNT columns). */
public enum AggregateFunction {
    COUNT, SUM, MIN, MAX, AVG
}
