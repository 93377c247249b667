package io.ashlar.parser.statement;

/** SET SESSION (the default) or SET LOCAL (until the end of the transaction). */
public enum VariableScope {
    SESSION, LOCAL
}
