package io.ashlar.parser.statement;

/** Row lock strengths of the locking clause; see <a href="https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE">The Locking Clause</a>. */
public enum LockStrength {
    UPDATE, NO_KEY_UPDATE, SHARE, KEY_SHARE
}
