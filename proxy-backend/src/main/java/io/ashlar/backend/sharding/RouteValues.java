package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.route.RouteParameters;
import java.math.BigInteger;

/**
 * A client's bound parameter values as the sharding algorithms take them, each read as PostgreSQL
 * reads it ({@link ParameterReader}) by the type PostgreSQL gives the parameter: the type the
 * client declared in Parse, else the one the backend inferred (its ParameterDescription); only
 * when neither is known is a text value text of unknown type, which the router considers both as
 * text and as a number. Values are read only when the router asks for one (most statements look
 * at one or two) and then kept; a value that cannot be read with certainty is an
 * {@link io.ashlar.route.UnreadableValue}, never a guess.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY">55.2.3. Extended Query</a>
 */
public final class RouteValues implements RouteParameters {

    private final ParameterValues values;
    private final int[] types;
    private final java.nio.charset.Charset text;
    private final Object[] read;

    /** Values read by the types they were bound with (the client's declared types). */
    public RouteValues(ParameterValues values) {
        this(values, values.types());
    }

    /**
     * Values read by {@code types}: one type OID per parameter as PostgreSQL types it (declared, or
     * inferred by a backend's Describe), 0 where unknown. The values go to the backends as the
     * client sent them whatever these types are.
     */
    public RouteValues(ParameterValues values, int[] types) {
        this(values, types, java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * As {@link #RouteValues(ParameterValues, int[])}, the values of text types read in {@code text}: the session's
     * client_encoding, in which PostgreSQL reads them.
     */
    public RouteValues(ParameterValues values, int[] types, java.nio.charset.Charset text) {
        this.values = values;
        this.types = types;
        this.text = text;
        this.read = new Object[values.values().length];
    }

    @Override
    public int count() {
        return read.length;
    }

    @Override
    public Object value(int index) {
        Object result = read[index];
        if (result == null) {
            byte[] raw = values.values()[index];
            if (raw == null) {
                return null;
            }
            result = ParameterReader.read(type(index), values.formats()[index] == 1, raw, text);
            read[index] = result;
        }
        return result;
    }

    @Override
    public boolean typed(int index) {
        int type = type(index);
        return type != ParameterReader.UNSPECIFIED && type != ParameterReader.UNKNOWN;
    }

    private int type(int index) {
        return index < types.length ? types[index] : ParameterReader.UNSPECIFIED;
    }

    /** An integer written as text, as the smallest of Integer, Long, BigInteger that holds it; null when it is not one. */
    public static Comparable<?> integer(String text) {
        int n = text.length();
        int start = n > 0 && (text.charAt(0) == '-' || text.charAt(0) == '+') ? 1 : 0;
        if (n == start || n - start > 400) {
            return null;
        }
        for (int i = start; i < n; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        if (n - start <= 9) {
            return Integer.parseInt(text);
        }
        BigInteger big = new BigInteger(text);
        if (big.bitLength() < 32) {
            return big.intValue();
        }
        return big.bitLength() < 64 ? (Comparable<?>) big.longValue() : big;
    }
}
