package io.ashlar.frontend.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client's {@code client_encoding} is compared as PostgreSQL compares encoding names
 * ({@code clean_encoding_name} in src/common/encnames.c keeps letters and digits, lower-cased):
 * asyncpg sends {@code 'utf-8'} with the quotes, JDBC drivers {@code UTF8}, others {@code utf_8}.
 */
final class ClientEncodingTest {

    @ParameterizedTest
    @ValueSource(strings = {"UTF8", "utf8", "'utf-8'", "UTF-8", "utf_8", "\"Utf8\"", " utf8 "})
    void everySpellingOfUtf8IsOneName(String spelling) {
        assertEquals("UTF8", PgConnectionHandler.clientEncoding(spelling).name());
    }

    @ParameterizedTest
    @ValueSource(strings = {"LATIN1", "latin-1", "ISO_8859_1", "iso88591"})
    void everySpellingOfLatin1IsOneName(String spelling) {
        assertEquals("LATIN1", PgConnectionHandler.clientEncoding(spelling).name());
    }

    @ParameterizedTest
    @ValueSource(strings = {"SQL_ASCII", "sql-ascii", "'SQL_ASCII'"})
    void everySpellingOfSqlAsciiIsOneName(String spelling) {
        assertEquals("SQL_ASCII", PgConnectionHandler.clientEncoding(spelling).name());
    }
}
