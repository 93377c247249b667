package io.ashlar.frontend.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Summing the tags of a batch bind's rows into the one tag openGauss answers. */
final class BatchCountTest {

    @Test
    void insertsSumTheirRows() {
        BatchCount count = new BatchCount();
        count.add("INSERT 0 1");
        count.add("INSERT 0 1");
        count.add("INSERT 0 3");
        assertEquals("INSERT 0 5", count.tag("INSERT INTO t VALUES ($1)"));
    }

    @Test
    void updatesAndDeletesSumTheirRows() {
        BatchCount updates = new BatchCount();
        updates.add("UPDATE 10");
        updates.add("UPDATE 0");
        updates.add("UPDATE 2147483647");
        assertEquals("UPDATE 2147483657", updates.tag("UPDATE t SET a = $1"));
        BatchCount deletes = new BatchCount();
        deletes.add("DELETE 4");
        assertEquals("DELETE 4", deletes.tag("delete from t"));
    }

    @Test
    void anEmptyBatchTakesItsVerbFromTheStatement() {
        assertEquals("INSERT 0 0", new BatchCount().tag("  insert into t values ($1)"));
        assertEquals("UPDATE 0", new BatchCount().tag("update t set a = $1"));
    }

    @Test
    void tagsWithoutCountsStayAsTheyAre() {
        BatchCount count = new BatchCount();
        count.add("SET");
        count.add("SET");
        assertEquals("SET", count.tag("set a = $1"));
    }
}
