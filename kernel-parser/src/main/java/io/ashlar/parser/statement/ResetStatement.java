package io.ashlar.parser.statement;

/**
 * RESET name, or RESET ALL (name {@code all}); special forms are named as in {@link SetStatement}.
 *
 * @param name the parameter name, lower case
 */
public record ResetStatement(String name) implements StatementBody {
    public boolean isAll() {
        return name.equals("all");
    }
}
