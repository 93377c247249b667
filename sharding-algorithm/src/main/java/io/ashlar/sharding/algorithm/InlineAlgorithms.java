package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.inline.InlineExpression;
import io.ashlar.sharding.inline.InlineExpressionException;

/** Compiling the expression property of the inline algorithms, with errors naming the property. */
final class InlineAlgorithms {

    private InlineAlgorithms() {
    }

    static InlineExpression compile(AlgorithmProperties properties, String key, String expression) {
        try {
            return InlineExpression.compile(expression);
        } catch (InlineExpressionException e) {
            throw new ShardingAlgorithmException(properties.owner() + ": property '" + key + "': " + e.getMessage(), e);
        }
    }
}
