package io.ashlar.bootstrap.it;

import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Properties;

/**
 * pgjdbc 9.3-1102, the driver BenchmarkSQL 5.0 ships, in a class loader of its own: its classes share
 * their names with the pgjdbc 42 on the test classpath, so it is loaded from the jar Maven copies to
 * {@code target/old-drivers} (system property {@value #JAR_PROPERTY}, set in the module's pom) over the
 * platform class loader, which gives it {@code java.sql} and nothing of the application. Connections
 * are made with {@link Driver#connect} on this driver: {@code DriverManager} would pick pgjdbc 42.
 *
 * <p>Without the jar the tests fail loudly: they are never skipped.
 *
 * @see <a href="https://jdbc.postgresql.org/documentation/93/connect.html">pgjdbc 9.3: connection parameters</a>
 */
final class Pgjdbc93 {

    static final String JAR_PROPERTY = "ashlar.test.pgjdbc93";

    private static final Driver DRIVER = load();

    private Pgjdbc93() {
    }

    /**
     * A connection to {@code url} with the given properties, the user and password among them.
     *
     * @throws SQLException as the driver throws it (its own PSQLException class)
     */
    static Connection connect(String url, Properties properties) throws SQLException {
        Connection result = DRIVER.connect(url, properties);
        if (result == null) {
            throw new IllegalArgumentException("pgjdbc 9.3 does not take the URL " + url);
        }
        return result;
    }

    /**
     * The transfer format of a result column (0 text, 1 binary), through the driver's own
     * {@code PGResultSetMetaData}, which lives in the driver's class loader.
     */
    static int format(ResultSetMetaData metaData, int column) throws SQLException {
        try {
            Class<?> pg = DRIVER.getClass().getClassLoader().loadClass("org.postgresql.PGResultSetMetaData");
            return (Integer) pg.getMethod("getFormat", int.class).invoke(metaData.unwrap(pg), column);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof SQLException cause) {
                throw cause;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("pgjdbc 9.3 has no PGResultSetMetaData.getFormat", e);
        }
    }

    /** The driver's own version, as it reports it. */
    static String version() {
        return DRIVER.getMajorVersion() + "." + DRIVER.getMinorVersion();
    }

    private static Driver load() {
        String jar = System.getProperty(JAR_PROPERTY);
        if (jar == null) {
            throw new IllegalStateException("system property " + JAR_PROPERTY + " is not set: run the test with Maven, "
                    + "whose proxy-bootstrap pom copies org.postgresql:postgresql:9.3-1102-jdbc41 to target/old-drivers");
        }
        Path path = Path.of(jar);
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException(path + " does not exist: the build's maven-dependency-plugin execution "
                    + "'old-drivers' copies it there (generate-test-resources)");
        }
        try {
            URLClassLoader loader = new URLClassLoader("pgjdbc-9.3", new URL[] {path.toUri().toURL()},
                    ClassLoader.getPlatformClassLoader());
            Driver result = (Driver) loader.loadClass("org.postgresql.Driver").getDeclaredConstructor().newInstance();
            if (result.getMajorVersion() != 9 || result.getMinorVersion() != 3) {
                throw new IllegalStateException(path + " is pgjdbc " + result.getMajorVersion() + "." + result.getMinorVersion()
                        + ", expected 9.3");
            }
            return result;
        } catch (MalformedURLException | ReflectiveOperationException e) {
            Throwable cause = e instanceof InvocationTargetException target ? target.getCause() : e;
            throw new IllegalStateException("cannot load pgjdbc 9.3 from " + path, cause);
        }
    }
}
