package io.ashlar.frontend.auth;

/**
 * The password exchange a login actually ran (what {@link AuthenticationMethod} became for the
 * client's dialect): what the proxy counts per dialect, so that an operator (and a test) can see
 * which clients log in how.
 */
public enum LoginMethod {
    SCRAM_SHA_256,
    MD5,
    PASSWORD,
    /** openGauss's SHA256 exchange (request code 10 to an openGauss client). */
    OPENGAUSS_SHA256
}
