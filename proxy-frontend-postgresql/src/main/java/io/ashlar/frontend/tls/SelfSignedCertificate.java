package io.ashlar.frontend.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * A certificate the proxy makes for itself at start when TLS is on and no certificate file is
 * named, as ShardingSphere-Proxy does: an EC P-256 key and an X.509 v3 certificate it signs itself
 * (ECDSA with SHA-256), for {@code CN=localhost} with the given names as subject alternative names.
 * It encrypts ({@code sslmode=require}); nobody can verify it ({@code verify-ca}, {@code
 * verify-full} need a certificate the operator names). Written in DER by hand because the JDK has
 * no public API that makes certificates (Netty's {@code SelfSignedCertificate} needs BouncyCastle,
 * or the JDK internals that JDK 16+ closes).
 *
 * @param key the private key
 * @param certificate the certificate of its public key
 * @see <a href="https://www.rfc-editor.org/rfc/rfc5280#section-4.1">RFC 5280, 4.1: Basic Certificate Fields</a>
 */
record SelfSignedCertificate(PrivateKey key, X509Certificate certificate) {

    /** ecdsa-with-SHA256 (RFC 5758, 3.2). */
    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String SUBJECT_ALTERNATIVE_NAME = "2.5.29.17";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");
    private static final DateTimeFormatter GENERALIZED_TIME = DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'");

    /**
     * A fresh key and certificate, valid from a day ago (clocks differ) for ten years.
     *
     * @param names host names and IP addresses (literals) the certificate names
     */
    static SelfSignedCertificate generate(List<String> names) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair pair = generator.generateKeyPair();
            byte[] serial = new byte[16];
            new SecureRandom().nextBytes(serial);
            serial[0] &= 0x7f; // a positive serial number, as RFC 5280 asks
            ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC).withNano(0);
            byte[] name = sequence(set(sequence(oid(COMMON_NAME), utf8String("localhost"))));
            byte[] algorithm = sequence(oid(ECDSA_WITH_SHA256));
            byte[] tbs = sequence(
                    explicit(0, integer(BigInteger.TWO)),              // version: v3
                    integer(new BigInteger(serial)),
                    algorithm,
                    name,                                              // issuer: itself
                    sequence(time(now.minusDays(1)), time(now.plusYears(10))),
                    name,                                              // subject
                    pair.getPublic().getEncoded(),                     // SubjectPublicKeyInfo, DER already
                    explicit(3, sequence(
                            sequence(oid(BASIC_CONSTRAINTS), octetString(sequence())), // not a CA
                            sequence(oid(SUBJECT_ALTERNATIVE_NAME), octetString(generalNames(names))))));
            Signature signer = Signature.getInstance("SHA256withECDSA");
            signer.initSign(pair.getPrivate());
            signer.update(tbs);
            byte[] der = sequence(tbs, algorithm, bitString(signer.sign()));
            X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der));
            return new SelfSignedCertificate(pair.getPrivate(), certificate);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not make a self-signed certificate: " + e.getMessage(), e);
        }
    }

    /** dNSName [2] IA5String or iPAddress [7] OCTET STRING for each name. */
    private static byte[] generalNames(List<String> names) {
        ByteArrayOutputStream result = new ByteArrayOutputStream();
        for (String each : names) {
            if (isIpLiteral(each)) {
                result.writeBytes(tagged(0x87, ipAddress(each)));
            } else {
                result.writeBytes(tagged(0x82, each.getBytes(StandardCharsets.US_ASCII)));
            }
        }
        return tagged(0x30, result.toByteArray());
    }

    private static boolean isIpLiteral(String name) {
        return name.contains(":") || name.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    private static byte[] ipAddress(String literal) {
        try {
            // A literal is parsed, never looked up.
            return InetAddress.getByName(literal).getAddress();
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + literal, e);
        }
    }

    private static byte[] time(ZonedDateTime at) {
        // RFC 5280, 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
        return at.getYear() < 2050
                ? tagged(0x17, UTC_TIME.format(at).getBytes(StandardCharsets.US_ASCII))
                : tagged(0x18, GENERALIZED_TIME.format(at).getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] sequence(byte[]... parts) {
        return tagged(0x30, concat(parts));
    }

    private static byte[] set(byte[]... parts) {
        return tagged(0x31, concat(parts));
    }

    private static byte[] explicit(int number, byte[] content) {
        return tagged(0xa0 | number, content);
    }

    private static byte[] integer(BigInteger value) {
        return tagged(0x02, value.toByteArray());
    }

    private static byte[] octetString(byte[] content) {
        return tagged(0x04, content);
    }

    private static byte[] bitString(byte[] content) {
        byte[] result = new byte[content.length + 1]; // no unused bits
        System.arraycopy(content, 0, result, 1, content.length);
        return tagged(0x03, result);
    }

    private static byte[] utf8String(String value) {
        return tagged(0x0c, value.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.");
        ByteArrayOutputStream result = new ByteArrayOutputStream();
        result.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            long arc = Long.parseLong(arcs[i]);
            int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(arc) + 6) / 7);
            for (int group = groups - 1; group >= 0; group--) {
                int seven = (int) (arc >>> (7 * group)) & 0x7f;
                result.write(group > 0 ? seven | 0x80 : seven);
            }
        }
        return tagged(0x06, result.toByteArray());
    }

    /** Tag, DER length (short or long form), content. */
    private static byte[] tagged(int tag, byte[] content) {
        ByteArrayOutputStream result = new ByteArrayOutputStream(content.length + 6);
        result.write(tag);
        int length = content.length;
        if (length < 0x80) {
            result.write(length);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
            result.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                result.write(length >>> (8 * i));
            }
        }
        result.writeBytes(content);
        return result.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream result = new ByteArrayOutputStream();
        for (byte[] each : parts) {
            result.writeBytes(each);
        }
        return result.toByteArray();
    }
}
