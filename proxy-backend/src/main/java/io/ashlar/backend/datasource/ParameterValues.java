package io.ashlar.backend.datasource;


/**
 * The values a client bound to a statement (Bind), with their formats and declared types,
 * passed to the backend as they came: text values as text, binary values as binary.
 *
 * @param types parameter type OIDs from Parse (0 = let the server infer)
 * @param formats one entry per value: 0 text, 1 binary
 * @param values raw values, {@code null} for SQL NULL
 */
public record ParameterValues(int[] types, short[] formats, byte[][] values) {

    public static final ParameterValues NONE = new ParameterValues(new int[0], new short[0], new byte[0][]);

    /**
     * Values with the format codes of a Bind message (none: all text; one: all that format),
     * and the statement's declared types padded with 0 to one per value.
     */
    public static ParameterValues of(int[] declaredTypes, short[] bindFormats, byte[][] values) {
        int[] types = declaredTypes.length == values.length ? declaredTypes : java.util.Arrays.copyOf(declaredTypes, values.length);
        short[] formats = new short[values.length];
        if (bindFormats.length == 1) {
            java.util.Arrays.fill(formats, bindFormats[0]);
        } else if (bindFormats.length == values.length) {
            System.arraycopy(bindFormats, 0, formats, 0, values.length);
        }
        return new ParameterValues(types, formats, values);
    }
}
