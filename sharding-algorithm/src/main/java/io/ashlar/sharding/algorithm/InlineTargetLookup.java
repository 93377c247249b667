package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.inline.InlineExpression;
import io.ashlar.sharding.inline.InlineExpression.ModuloShape;

/**
 * Routes one value through a single-variable inline expression over fixed targets. For the
 * shape {@code prefix${column % n}suffix} and a boxed Java integer it is a remainder and an array
 * read; otherwise the expression is evaluated and the name looked up.
 */
final class InlineTargetLookup {

    private final InlineExpression expression;

    private final ShardingTargets targets;

    private final String owner;

    private final String column;

    private final int modulus;

    private final int constantIndex;

    private final int[] indexByRemainder;

    InlineTargetLookup(InlineExpression expression, ShardingTargets targets, String owner, String column) {
        this.expression = expression;
        this.targets = targets;
        this.owner = owner;
        this.column = column;
        this.constantIndex = expression.isConstant() ? targets.indexOf(expression.evaluate()) : BoundStandardAlgorithm.NO_TARGET;
        ModuloShape shape = expression.moduloShape().orElse(null);
        if (shape == null || shape.modulus() > 65_536) {
            this.modulus = 0;
            this.indexByRemainder = new int[0];
        } else {
            this.modulus = shape.modulus();
            this.indexByRemainder = new int[2 * modulus - 1];
            for (int remainder = 1 - modulus; remainder < modulus; remainder++) {
                indexByRemainder[remainder + modulus - 1] = targets.indexOf(shape.prefix() + remainder + shape.suffix());
            }
        }
    }

    /** The target index of a value, or {@link BoundStandardAlgorithm#NO_TARGET}. */
    int route(Object value) {
        if (constantIndex != BoundStandardAlgorithm.NO_TARGET) {
            return constantIndex;
        }
        if (modulus != 0 && IntegralValues.isLongValued(value)) {
            return indexByRemainder[(int) (((Number) value).longValue() % modulus) + modulus - 1];
        }
        return targets.indexOf(evaluate(value));
    }

    /** The name the expression computes for a value (which need not be a target). */
    String evaluate(Object value) {
        try {
            return expression.evaluate(value);
        } catch (ShardingAlgorithmException e) {
            throw new ShardingAlgorithmException(owner + " cannot use value '" + value + "' (" + value.getClass().getName() + ") of column '" + column + "': "
                    + e.getMessage(), e);
        }
    }
}
