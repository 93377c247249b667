package io.ashlar.sharding.inline;

import io.ashlar.sharding.ShardingAlgorithmException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;
import java.util.Optional;

/**
 * The methods an inline expression may call: the ones ShardingSphere users write in
 * {@code algorithm-expression}s ({@code hashCode()}, {@code abs()}, {@code intdiv(n)},
 * {@code Math.abs(x)}, ...) plus a few String helpers. Each follows the Groovy method of the same
 * name on the value's Java type.
 */
enum InlineMethod {

    HASH_CODE("hashCode", false, 0, 0),
    ABS("abs", false, 0, 0),
    INTDIV("intdiv", false, 1, 1),
    TO_STRING("toString", false, 0, 0),
    TO_INTEGER("toInteger", false, 0, 0),
    TO_LONG("toLong", false, 0, 0),
    TO_BIG_INTEGER("toBigInteger", false, 0, 0),
    LENGTH("length", false, 0, 0),
    SUBSTRING("substring", false, 1, 2),
    PAD_LEFT("padLeft", false, 1, 2),
    TO_UPPER_CASE("toUpperCase", false, 0, 0),
    TO_LOWER_CASE("toLowerCase", false, 0, 0),
    TRIM("trim", false, 0, 0),
    MATH_ABS("Math.abs", true, 1, 1),
    MATH_FLOOR_MOD("Math.floorMod", true, 2, 2),
    LONG_PARSE_LONG("Long.parseLong", true, 1, 1),
    LONG_VALUE_OF("Long.valueOf", true, 1, 1),
    INTEGER_PARSE_INT("Integer.parseInt", true, 1, 1),
    INTEGER_VALUE_OF("Integer.valueOf", true, 1, 1),
    STRING_VALUE_OF("String.valueOf", true, 1, 1);

    private final String javaName;

    private final boolean isStatic;

    private final int minArguments;

    private final int maxArguments;

    InlineMethod(String javaName, boolean isStatic, int minArguments, int maxArguments) {
        this.javaName = javaName;
        this.isStatic = isStatic;
        this.minArguments = minArguments;
        this.maxArguments = maxArguments;
    }

    /** The method called on a value by that name, if supported. */
    static Optional<InlineMethod> instanceMethod(String name) {
        for (InlineMethod each : values()) {
            if (!each.isStatic && each.javaName.equals(name)) {
                return Optional.of(each);
            }
        }
        return Optional.empty();
    }

    /** The static method {@code owner.name}, if supported. */
    static Optional<InlineMethod> staticMethod(String owner, String name) {
        String qualified = owner + "." + name;
        for (InlineMethod each : values()) {
            if (each.isStatic && each.javaName.equals(qualified)) {
                return Optional.of(each);
            }
        }
        return Optional.empty();
    }

    /** Whether {@code name} can start a static call ({@code Math}, {@code Long}, ...). */
    static boolean isStaticOwner(String name) {
        return "Math".equals(name) || "Long".equals(name) || "Integer".equals(name) || "String".equals(name);
    }

    String javaName() {
        return javaName;
    }

    boolean accepts(int arguments) {
        return arguments >= minArguments && arguments <= maxArguments;
    }

    String arity() {
        return minArguments == maxArguments ? String.valueOf(minArguments) : minArguments + " or " + maxArguments;
    }

    Object apply(Object self, Object[] args) {
        return switch (this) {
            case HASH_CODE -> self.hashCode();
            case ABS, MATH_ABS -> GroovyMath.abs(isStatic ? args[0] : self);
            case INTDIV -> GroovyMath.intdiv(self, args[0]);
            case TO_STRING -> GroovyMath.render(self);
            case TO_INTEGER -> GroovyMath.toInteger(self);
            case TO_LONG -> GroovyMath.toLong(self);
            case TO_BIG_INTEGER -> GroovyMath.toBigInteger(self);
            case LENGTH -> text(self).length();
            case SUBSTRING -> substring(text(self), args);
            case PAD_LEFT -> padLeft(GroovyMath.render(self), args);
            case TO_UPPER_CASE -> text(self).toUpperCase(Locale.ROOT);
            case TO_LOWER_CASE -> text(self).toLowerCase(Locale.ROOT);
            case TRIM -> text(self).trim();
            case MATH_FLOOR_MOD -> GroovyMath.floorMod(args[0], args[1]);
            case LONG_PARSE_LONG, LONG_VALUE_OF -> parse(args[0], false);
            case INTEGER_PARSE_INT, INTEGER_VALUE_OF -> parse(args[0], true);
            case STRING_VALUE_OF -> GroovyMath.render(args[0]);
        };
    }

    private String text(Object self) {
        if (self instanceof String result) {
            return result;
        }
        throw new ShardingAlgorithmException(javaName + "() needs a string, got " + GroovyMath.describe(self));
    }

    private String substring(String text, Object[] args) {
        int begin = index(args[0]);
        int end = args.length > 1 ? index(args[1]) : text.length();
        if (begin < 0 || end > text.length() || begin > end) {
            throw new ShardingAlgorithmException("substring(" + begin + (args.length > 1 ? ", " + end : "") + ") is out of bounds for " + GroovyMath.describe(text));
        }
        return text.substring(begin, end);
    }

    private String padLeft(String text, Object[] args) {
        int width = index(args[0]);
        String padding = args.length > 1 ? GroovyMath.render(args[1]) : " ";
        if (width <= text.length() || padding.isEmpty()) {
            return text;
        }
        StringBuilder result = new StringBuilder(width);
        int missing = width - text.length();
        while (result.length() < missing) {
            result.append(padding);
        }
        result.setLength(missing);
        return result.append(text).toString();
    }

    private int index(Object value) {
        Number number = GroovyMath.number(value, javaName + "()");
        if (number instanceof Integer || number instanceof Short || number instanceof Byte) {
            return number.intValue();
        }
        throw new ShardingAlgorithmException(javaName + "() needs an int, got " + GroovyMath.describe(value));
    }

    private Object parse(Object value, boolean toInt) {
        Number number = GroovyMath.number(value, javaName + "()");
        if (number instanceof BigInteger || number instanceof BigDecimal || number instanceof Double || number instanceof Float
                || toInt && number instanceof Long) {
            throw new ShardingAlgorithmException(javaName + "() cannot parse " + GroovyMath.describe(value));
        }
        return toInt ? (Object) number.intValue() : (Object) number.longValue();
    }
}
