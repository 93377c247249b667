package io.ashlar.rewrite;

import io.ashlar.route.RouteUnit;

/**
 * The SQL one route unit runs, and where its parameters come from.
 *
 * <p>{@code parameterMap[k]} is the 0-based index of the client's parameter that the unit's
 * {@code $(k+1)} takes (for SQL written with JDBC {@code ?} markers: that its {@code (k+1)}-th
 * marker takes). It is the identity when nothing moved; a multi-row INSERT split keeps only the
 * unit's rows and renumbers {@code $n} in order of appearance, and a removed HAVING drops the
 * parameters only it used. The array is shared between executions: never modify it.
 *
 * @param unit         the route unit
 * @param sql          the text to run on {@link RouteUnit#dataSource()}
 * @param parameterMap unit parameter position to client parameter index
 */
public record RewrittenUnit(RouteUnit unit, String sql, int[] parameterMap) {

    /** Whether the unit takes the client's parameters as they are, in the same positions. */
    public boolean identityParameters(int clientParameterCount) {
        if (parameterMap.length != clientParameterCount) {
            return false;
        }
        for (int i = 0; i < parameterMap.length; i++) {
            if (parameterMap[i] != i) {
                return false;
            }
        }
        return true;
    }
}
