package io.ashlar.backend.metadata;

/**
 * A table constraint: primary key, unique, check, exclusion or foreign key.
 *
 * @param name       the constraint name
 * @param kind       {@code pg_constraint.contype}: p, u, c, x or f
 * @param definition as {@code pg_get_constraintdef} prints it, relations schema-qualified
 * @param enforcedByProxy whether a foreign key the proxy enforces across data sources ({@link ProxyForeignKey}): on the
 *                   actual tables it is a placeholder CHECK constraint of the same name, read back as the key
 */
public record ConstraintMetadata(String name, char kind, String definition, boolean enforcedByProxy) {

    public ConstraintMetadata(String name, char kind, String definition) {
        this(name, kind, definition, false);
    }

    boolean isForeignKey() {
        return kind == 'f';
    }
}
