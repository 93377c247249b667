package io.ashlar.backend.metadata;

/**
 * One column of a table, as PostgreSQL's catalog describes it and as {@code CREATE TABLE} writes it.
 *
 * @param name       the column name
 * @param type       the type with its modifier, as {@code format_type} prints it ({@code character varying(20)})
 * @param notNull    whether NOT NULL
 * @param defaultExpression the DEFAULT expression as {@code pg_get_expr} prints it, empty for none
 * @param identity   {@code a} (GENERATED ALWAYS AS IDENTITY), {@code d} (BY DEFAULT), empty for none
 * @param generated  the expression of a stored generated column, empty for none
 * @param collation  the quoted collation name when not the type's default, else empty
 * @param comment    the column's comment, empty for none
 */
public record ColumnMetadata(String name, String type, boolean notNull, String defaultExpression, String identity,
                             String generated, String collation, String comment) {

    /**
     * The sequences the default calls nextval of, as PostgreSQL prints them ({@code nextval('public.s1'::regclass)}:
     * schema-qualified where not on the search path, quoted where needed); empty for none.
     */
    public java.util.List<String> nextvalSequences() {
        String expression = defaultExpression;
        java.util.List<String> result = java.util.List.of();
        for (int at = expression.indexOf("nextval('"); at >= 0; at = expression.indexOf("nextval('", at + 9)) {
            int end = expression.indexOf("'::regclass)", at + 9);
            if (end < 0) {
                break;
            }
            String name = expression.substring(at + 9, end);
            if (name.indexOf('\'') < 0) {
                result = result.isEmpty() ? new java.util.ArrayList<>(1) : result;
                result.add(name);
            }
        }
        return result;
    }
}
