package io.ashlar.backend.datasource;

import java.sql.SQLException;

/**
 * What a backend batch did, row by row.
 *
 * @param tags the command tag of each row that ran before the first failure (of every row when none failed)
 * @param failedRow the first row that failed, or -1
 * @param failure that row's error, or null
 */
public record BatchResults(String[] tags, int failedRow, SQLException failure) {
}
