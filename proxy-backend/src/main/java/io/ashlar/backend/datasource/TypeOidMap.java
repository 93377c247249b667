package io.ashlar.backend.datasource;

import io.ashlar.backend.execute.ColumnDescription;
import java.util.Arrays;

/**
 * A data source's OIDs of the types made after initdb (enums, domains, composite types, extensions' types and the
 * arrays of them) against the OIDs the same types (same schema, same name) have on the logical database's default
 * data source, which is where clients' type look-ups go. Every data source numbers its types itself, so a
 * RowDescription of another shard named types the client could not look up, and a Parse declaring a parameter of
 * such a type by the client's OID named another type there, or none ({@code cache lookup failed for type}). Its
 * connections describe results in the default data source's OIDs and declare parameters in their own.
 * Immutable; {@link #NONE} where the OIDs agree (the default data source itself, or no such type).
 */
public final class TypeOidMap {

    public static final TypeOidMap NONE = new TypeOidMap(new int[0], new int[0], new int[0], new int[0]);

    /** Built-in types (OIDs below FirstNormalObjectId) are the same everywhere. */
    private static final int FIRST_NORMAL_OID = 16384;

    private final int[] local;
    private final int[] canonicalOfLocal;
    private final int[] canonical;
    private final int[] localOfCanonical;

    private TypeOidMap(int[] local, int[] canonicalOfLocal, int[] canonical, int[] localOfCanonical) {
        this.local = local;
        this.canonicalOfLocal = canonicalOfLocal;
        this.canonical = canonical;
        this.localOfCanonical = localOfCanonical;
    }

    /** The map of pairs ({@code pairs[2i]} this data source's OID, {@code pairs[2i + 1]} the default's); NONE when empty. */
    public static TypeOidMap of(int[] pairs) {
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
        return new TypeOidMap(local, canonicalOfLocal, canonical, localOfCanonical);
    }

    /** Whether the two map the same OIDs. */
    public boolean sameAs(TypeOidMap other) {
        return Arrays.equals(local, other.local) && Arrays.equals(canonicalOfLocal, other.canonicalOfLocal);
    }

    public boolean isEmpty() {
        return local.length == 0;
    }

    /** This data source's OID of a type as the default data source numbers it (the same when it has no other). */
    public int toCanonical(int oid) {
        if (Integer.compareUnsigned(oid, FIRST_NORMAL_OID) < 0 || local.length == 0) {
            return oid;
        }
        int at = Arrays.binarySearch(local, oid);
        return at < 0 ? oid : canonicalOfLocal[at];
    }

    /** The default data source's OID of a type as this data source numbers it (the same when it has no other). */
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

    /** Parameter types this data source described, as the default data source numbers them: the same array when none changes. */
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

    /** Result columns this data source described, their types as the default data source numbers them. */
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
