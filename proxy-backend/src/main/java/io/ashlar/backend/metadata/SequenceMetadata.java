package io.ashlar.backend.metadata;

/**
 * A sequence a column owns (serial, or ALTER SEQUENCE ... OWNED BY); identity columns' sequences come
 * with the column.
 *
 * @param name    the sequence name
 * @param column  the owning column
 * @param options the options of CREATE SEQUENCE that reproduce it ({@code AS bigint START WITH 1 ...}), empty when
 *                the backend does not tell them (before PostgreSQL 10)
 */
public record SequenceMetadata(String name, String column, String options) {
}
