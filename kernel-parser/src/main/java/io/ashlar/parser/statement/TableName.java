package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * A table name as PostgreSQL resolves it: normalised (unquoted parts folded to lower case, quoted
 * parts kept) and optionally schema-qualified. Immutable, with a cached hash code, because routers
 * use it as a map key to find a table's rule.
 */
public final class TableName {
    private final String schema;
    private final String name;
    private final int hash;

    private TableName(String schema, String name) {
        this.schema = schema;
        this.name = name;
        this.hash = 31 * schema.hashCode() + name.hashCode();
    }

    /** An unqualified name. */
    public static TableName of(String name) {
        return new TableName("", name);
    }

    /** A schema-qualified name; an empty {@code schema} means unqualified. */
    public static TableName of(String schema, String name) {
        return new TableName(schema, name);
    }

    /** The schema, if the name was qualified (the catalog part of a three-part name is dropped). */
    public Optional<String> schema() {
        return schema.isEmpty() ? Optional.empty() : Optional.of(schema);
    }

    /** The table name proper. */
    public String name() {
        return name;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TableName that && hash == that.hash && name.equals(that.name)
                && schema.equals(that.schema);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return schema.isEmpty() ? name : schema + "." + name;
    }
}
