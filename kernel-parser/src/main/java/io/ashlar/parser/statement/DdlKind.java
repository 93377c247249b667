package io.ashlar.parser.statement;

/** The DDL statements the analyzer tells apart; others are *_OTHER with {@link DdlStatement#objectType()}. */
public enum DdlKind {
    CREATE_TABLE, ALTER_TABLE, DROP_TABLE, TRUNCATE_TABLE,
    CREATE_INDEX, ALTER_INDEX, DROP_INDEX,
    CREATE_OTHER, ALTER_OTHER, DROP_OTHER
}
