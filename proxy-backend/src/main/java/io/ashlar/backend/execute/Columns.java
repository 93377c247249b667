package io.ashlar.backend.execute;

import org.postgresql.core.Field;

/** Field descriptions from pgjdbc turned into the proxy's plain column descriptions. */
public final class Columns {

    private Columns() {
    }

    public static ColumnDescription[] of(Field[] fields) {
        ColumnDescription[] result = new ColumnDescription[fields.length];
        for (int i = 0; i < fields.length; i++) {
            Field f = fields[i];
            result[i] = new ColumnDescription(f.getColumnLabel(), f.getTableOid(), (short) f.getPositionInTable(),
                    f.getOID(), (short) f.getLength(), f.getMod());
        }
        return result;
    }
}
