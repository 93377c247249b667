package io.ashlar.backend.config;

import java.util.Objects;

/**
 * A user allowed to log in to the proxy, from server.yaml ({@code root@%:root} in the 5.1
 * {@code !AUTHORITY} list form, or {@code user: root@%} with {@code password:} in the 5.4+
 * {@code authority:} form).
 *
 * @param name user name
 * @param host host pattern ({@code %} for any)
 * @param password clear-text password; the proxy derives SCRAM/MD5/SHA256 verifiers from it
 * @param authenticationMethod {@code scram-sha-256} (the default), {@code md5} or {@code password}
 */
public record ProxyUser(String name, String host, String password, String authenticationMethod) {

    public static final String SCRAM_SHA_256 = "scram-sha-256";
    public static final String MD5 = "md5";
    public static final String PASSWORD = "password";

    public ProxyUser {
        Objects.requireNonNull(name, "name");
        host = host == null || host.isEmpty() ? "%" : host;
        password = password == null ? "" : password;
        authenticationMethod = authenticationMethod == null ? SCRAM_SHA_256 : authenticationMethod;
    }
}
