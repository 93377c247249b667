package io.ashlar.parser.statement;

import java.util.List;

/**
 * SET of a run-time parameter; see <a href="https://www.postgresql.org/docs/current/sql-set.html">SET</a>.
 * The special forms get their parameter's real name: {@code TIME ZONE} is {@code timezone},
 * {@code NAMES} is {@code client_encoding}, {@code SCHEMA} is {@code search_path}, {@code ROLE} is
 * {@code role}, {@code SESSION AUTHORIZATION} is {@code session_authorization}, {@code XML OPTION}
 * is {@code xmloption}; {@code SET CONSTRAINTS} is {@code constraints}.
 *
 * @param scope      SESSION or LOCAL
 * @param name       the parameter name, lower case ({@code a.b} for custom ones)
 * @param values     the values: strings unquoted, names normalised, numbers as written; empty when
 *                   {@link #toDefault()}
 * @param valueRange source range of the value list
 * @param toDefault  {@code TO DEFAULT}, {@code TIME ZONE LOCAL}, {@code ROLE NONE}, {@code SESSION AUTHORIZATION DEFAULT}
 */
public record SetStatement(VariableScope scope, String name, List<String> values, SourceRange valueRange,
                           boolean toDefault) implements StatementBody {
    public SetStatement {
        values = List.copyOf(values);
    }
}
