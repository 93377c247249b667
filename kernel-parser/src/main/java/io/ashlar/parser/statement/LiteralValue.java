package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * A constant: {@code 42}, {@code -7}, {@code 1.5}, {@code 'abc'}, {@code E'a\tb'}, {@code $$x$$},
 * {@code '5'::int8}, {@code CAST('5' AS bigint)}, {@code DATE '2024-01-01'}, {@code TRUE}.
 *
 * @param kind     the lexical kind
 * @param value    the value as text: numbers in canonical form with their sign, strings unescaped
 * @param typeName the cast or typed-literal type, if any
 * @param range    source range, sign and casts included
 */
public record LiteralValue(LiteralKind kind, String value, Optional<String> typeName, SourceRange range)
        implements SqlValue {
}
