package io.ashlar.backend.metadata;

/**
 * A table constraint: primary key, unique, check, exclusion or foreign key.
 *
 * @param name       the constraint name
 * @param kind       {@code pg_constraint.contype}: p, u, c, x or f
 * @param definition as {@code pg_get_constraintdef} prints it, relations schema-qualified
 */
public record ConstraintMetadata(String name, char kind, String definition) {

    boolean isForeignKey() {
        return kind == 'f';
    }
}
