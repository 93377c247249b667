package io.ashlar.backend.datasource;

import io.ashlar.backend.execute.ColumnDescription;
import java.util.Arrays;

/**
 * A data source's OIDs of the types made after initdb (enums, domains, composite types, extensions' types and the
 * arrays of them) against the OIDs clients are told for the same types (same schema, same name): the logical
 * database's catalog database's, where clients' type look-ups go (or the default data source's, when there is
 * none, or the catalog database lacks the type). Every database numbers its types itself, so a RowDescription of a
 * shard named types the client could not look up, and a Parse declaring a parameter of such a type by the client's
 * OID named another type there, or none ({@code cache lookup failed for type}). Its connections describe results in
 * the OIDs clients are told, rewrite the ones inside binary values they relay ({@link #rowPatch}), and declare
 * parameters in their own. Immutable; {@link #NONE} where the OIDs agree.
 */
public final class TypeOidMap {

    public static final TypeOidMap NONE = new TypeOidMap(new int[0], new int[0], new int[0], new int[0], new int[0], new int[0]);

    /** Built-in types (OIDs below FirstNormalObjectId) are the same everywhere. */
    private static final int FIRST_NORMAL_OID = 16384;
    /** {@code record} and {@code record[]}: anonymous rows, whose binary values name their fields' types. */
    private static final int RECORD = 2249;
    private static final int RECORD_ARRAY = 2287;

    private final int[] local;
    private final int[] canonicalOfLocal;
    private final int[] canonical;
    private final int[] localOfCanonical;
    /** This data source's composite types and arrays of types made after initdb (sorted): their binary values name types. */
    private final int[] composites;
    private final int[] arrays;

    private TypeOidMap(int[] local, int[] canonicalOfLocal, int[] canonical, int[] localOfCanonical, int[] composites,
                       int[] arrays) {
        this.local = local;
        this.canonicalOfLocal = canonicalOfLocal;
        this.canonical = canonical;
        this.localOfCanonical = localOfCanonical;
        this.composites = composites;
        this.arrays = arrays;
    }

    /** The map of pairs ({@code pairs[2i]} this data source's OID, {@code pairs[2i + 1]} the default's); NONE when empty. */
    public static TypeOidMap of(int[] pairs) {
        return of(pairs, new int[0], new int[0]);
    }

    /**
     * The map of pairs ({@code pairs[2i]} this data source's OID, {@code pairs[2i + 1]} the one clients are told);
     * NONE when empty.
     *
     * @param composites this data source's composite types made after initdb (their binary values name their fields' types)
     * @param arrays its array types of types made after initdb (their binary values name their element type)
     */
    public static TypeOidMap of(int[] pairs, int[] composites, int[] arrays) {
        int n = pairs.length / 2;
        if (n == 0) {
            return NONE;
        }
        long[] byLocal = new long[n];
        long[] byCanonical = new long[n];
        for (int i = 0; i < n; i++) {
            byLocal[i] = (long) pairs[2 * i] << 32 | (pairs[2 * i + 1] & 0xffffffffL);
            byCanonical[i] = (long) pairs[2 * i + 1] << 32 | (pairs[2 * i] & 0xffffffffL);
        }
        Arrays.sort(byLocal);
        Arrays.sort(byCanonical);
        int[] local = new int[n];
        int[] canonicalOfLocal = new int[n];
        int[] canonical = new int[n];
        int[] localOfCanonical = new int[n];
        for (int i = 0; i < n; i++) {
            local[i] = (int) (byLocal[i] >>> 32);
            canonicalOfLocal[i] = (int) byLocal[i];
            canonical[i] = (int) (byCanonical[i] >>> 32);
            localOfCanonical[i] = (int) byCanonical[i];
        }
        int[] sortedComposites = composites.clone();
        int[] sortedArrays = arrays.clone();
        Arrays.sort(sortedComposites);
        Arrays.sort(sortedArrays);
        return new TypeOidMap(local, canonicalOfLocal, canonical, localOfCanonical, sortedComposites, sortedArrays);
    }

    /** Whether the two map the same OIDs. */
    public boolean sameAs(TypeOidMap other) {
        return Arrays.equals(local, other.local) && Arrays.equals(canonicalOfLocal, other.canonicalOfLocal)
                && Arrays.equals(composites, other.composites) && Arrays.equals(arrays, other.arrays);
    }

    // ------------------------------------------------------------------ type OIDs inside binary values

    /**
     * The row patch of a RowDescription this data source sent ({@link io.ashlar.backend.pg.RowDescriptionCache}): for
     * each column whose binary values name type OIDs of this data source (composites, records, arrays of types made
     * after initdb), its type; null when there is none, or no OID differs. A client checks those OIDs against the
     * ones it looked up (asyncpg refuses a composite whose field types differ), so one shard's answer relayed as it
     * sent it has them rewritten as the RowDescription's are.
     *
     * @param binaryTypes the type of each column sent in binary, 0 for each text one
     */
    public int[] rowPatch(int[] binaryTypes) {
        if (local.length == 0) {
            return null;
        }
        int[] result = null;
        for (int i = 0; i < binaryTypes.length; i++) {
            if (binaryTypes[i] != 0 && carriesOids(binaryTypes[i])) {
                if (result == null) {
                    result = new int[binaryTypes.length];
                }
                result[i] = binaryTypes[i];
            }
        }
        return result;
    }

    /** Whether a binary value of this data source's type {@code oid} names type OIDs inside it. */
    private boolean carriesOids(int oid) {
        return oid == RECORD || oid == RECORD_ARRAY || Integer.compareUnsigned(oid, FIRST_NORMAL_OID) >= 0
                && (Arrays.binarySearch(composites, oid) >= 0 || Arrays.binarySearch(arrays, oid) >= 0);
    }

    /** Rewrites, as {@link #rowPatch} says, the type OIDs inside the values of a row of this data source. */
    public void patchRow(int[] rowPatch, byte[][] values) {
        for (int i = 0; i < rowPatch.length && i < values.length; i++) {
            if (rowPatch[i] != 0 && values[i] != null) {
                patch(values[i], 0, values[i].length, rowPatch[i]);
            }
        }
    }

    /** Rewrites, as {@link #rowPatch} says, the type OIDs inside the values of a DataRow body of this data source. */
    public void patchBody(int[] rowPatch, byte[] body) {
        int count = (body[0] & 0xff) << 8 | body[1] & 0xff;
        int at = 2;
        for (int i = 0; i < count && at + 4 <= body.length; i++) {
            int length = getInt(body, at);
            at += 4;
            if (length > 0) {
                if (i < rowPatch.length && rowPatch[i] != 0 && at + length <= body.length) {
                    patch(body, at, length, rowPatch[i]);
                }
                at += length;
            }
        }
    }

    /**
     * Rewrites in place the OIDs a binary value of this data source's type {@code type} names (a composite's or
     * record's field types, an array's element type, and theirs within): each becomes the OID clients are told.
     * (Parameters need no such care: PostgreSQL's array_recv and record_recv take user types' OIDs as they come.)
     * The value is PostgreSQL's; a length that does not fit ends the walk.
     */
    private void patch(byte[] value, int at, int length, int type) {
        int end = at + length;
        if (type == RECORD || Arrays.binarySearch(composites, type) >= 0) {
            if (length < 4) {
                return;
            }
            int count = getInt(value, at);
            int p = at + 4;
            for (int i = 0; i < count; i++) {
                if (p + 8 > end) {
                    return;
                }
                int field = getInt(value, p);
                putInt(value, p, toCanonical(field));
                int fieldLength = getInt(value, p + 4);
                p += 8;
                if (fieldLength > 0) {
                    if (p + fieldLength > end) {
                        return;
                    }
                    if (carriesOids(field)) {
                        patch(value, p, fieldLength, field);
                    }
                    p += fieldLength;
                }
            }
        } else if (length >= 12) { // an array
            int dimensions = getInt(value, at);
            int element = getInt(value, at + 8);
            putInt(value, at + 8, toCanonical(element));
            if (!carriesOids(element) || dimensions <= 0) {
                return;
            }
            int p = at + 12;
            long count = 1;
            for (int d = 0; d < dimensions; d++) {
                if (p + 8 > end) {
                    return;
                }
                count *= getInt(value, p);
                p += 8;
            }
            for (long i = 0; i < count; i++) {
                if (p + 4 > end) {
                    return;
                }
                int elementLength = getInt(value, p);
                p += 4;
                if (elementLength > 0) {
                    if (p + elementLength > end) {
                        return;
                    }
                    patch(value, p, elementLength, element);
                    p += elementLength;
                }
            }
        }
    }

    private static int getInt(byte[] b, int at) {
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | b[at + 3] & 0xff;
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    public boolean isEmpty() {
        return local.length == 0;
    }

    /** The OID clients are told of a type of this data source (the same when it has no other). */
    public int toCanonical(int oid) {
        if (Integer.compareUnsigned(oid, FIRST_NORMAL_OID) < 0 || local.length == 0) {
            return oid;
        }
        int at = Arrays.binarySearch(local, oid);
        return at < 0 ? oid : canonicalOfLocal[at];
    }

    /** This data source's OID of a type clients are told of (the same when it has no other). */
    public int toLocal(int oid) {
        if (Integer.compareUnsigned(oid, FIRST_NORMAL_OID) < 0 || canonical.length == 0) {
            return oid;
        }
        int at = Arrays.binarySearch(canonical, oid);
        return at < 0 ? oid : localOfCanonical[at];
    }

    /** Parameter types for this data source: the same array when none changes. */
    public int[] toLocal(int[] types) {
        return canonical.length == 0 ? types : mapped(types, this::toLocal);
    }

    /** Parameter types this data source described, as clients are told them: the same array when none changes. */
    public int[] toCanonical(int[] types) {
        return local.length == 0 ? types : mapped(types, this::toCanonical);
    }

    private static int[] mapped(int[] types, java.util.function.IntUnaryOperator map) {
        int[] result = types;
        for (int i = 0; i < types.length; i++) {
            int mapped = map.applyAsInt(types[i]);
            if (mapped != types[i]) {
                if (result == types) {
                    result = types.clone();
                }
                result[i] = mapped;
            }
        }
        return result;
    }

    /** Result columns this data source described, their types as clients are told them. */
    public ColumnDescription[] toCanonical(ColumnDescription[] columns) {
        if (local.length == 0) {
            return columns;
        }
        ColumnDescription[] result = columns;
        for (int i = 0; i < columns.length; i++) {
            ColumnDescription column = columns[i];
            int mapped = toCanonical(column.typeOid());
            if (mapped != column.typeOid()) {
                if (result == columns) {
                    result = columns.clone();
                }
                result[i] = new ColumnDescription(column.name(), column.tableOid(), column.columnNumber(), mapped,
                        column.typeSize(), column.typeModifier());
            }
        }
        return result;
    }
}
