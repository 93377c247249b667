package io.ashlar.parser.statement;

/** Transaction isolation levels; see <a href="https://www.postgresql.org/docs/current/transaction-iso.html">13.2</a>. */
public enum IsolationLevel {
    READ_UNCOMMITTED, READ_COMMITTED, REPEATABLE_READ, SERIALIZABLE
}
