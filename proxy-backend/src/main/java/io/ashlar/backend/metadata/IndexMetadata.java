package io.ashlar.backend.metadata;

/**
 * An index that no constraint owns (those come with their constraint).
 *
 * @param name       the index name
 * @param definition the CREATE INDEX statement as {@code pg_get_indexdef} prints it, relations schema-qualified
 * @param comment    the index's comment, empty for none
 */
public record IndexMetadata(String name, String definition, String comment) {
}
