package io.ashlar.frontend.types;

import io.ashlar.merge.value.TypeOids;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The lookup, the framing and the refusals, with no database: hand-computed binary forms (one
 * comment per field) and text that no backend would send. {@link TextToBinaryDifferentialTest}
 * checks the conversions themselves against PostgreSQL.
 */
final class BinaryEncodersTest {

    private static final int[] SUPPORTED = {
        16, 17, 19, 20, 21, 23, 25, 26, 114, 700, 701, 1042, 1043, 1082, 1083, 1114, 1184, 1186, 1700, 2950, 3802,
        1000, 1001, 1005, 1007, 1009, 1015, 1016, 1021, 1022, 1115, 1182, 1183, 1185, 1231, 2951, 199, 3807, 1003,
        1014, 1028, 1187, 18, 1002, 869, 650, 1041, 651, 829, 774, 1040, 775, 3904, 3926, 3906, 3912, 3908, 3910,
        3905, 3927, 3907, 3913, 3909, 3911, 4451, 4536, 4532, 4535, 4533, 4534, 6150, 6157, 6151, 6155, 6152, 6153,
    };

    @Test
    void findsAnEncoderForEveryListedTypeThatReportsThatType() {
        for (int oid : SUPPORTED) {
            assertTrue(BinaryEncoders.supports(oid), "supports " + oid);
            assertEquals(oid, BinaryEncoders.find(oid).orElseThrow().typeOid());
        }
    }

    @Test
    void refusesOtherTypesWithFeatureNotSupported() {
        for (int oid : new int[] {0, 601, 142, 790, 1560, 3614, 2249, 3831, -1}) {
            assertFalse(BinaryEncoders.supports(oid), "supports " + oid);
            assertTrue(BinaryEncoders.find(oid).isEmpty());
        }
        assertEquals("0A000", BinaryEncoders.UNSUPPORTED_SQLSTATE);
        assertEquals("binary output format is not supported by Ashlar for type oid 600",
                BinaryEncoders.unsupportedMessage(600));
        assertEquals("binary output format is not supported by Ashlar for type oid 4294967295",
                BinaryEncoders.unsupportedMessage(-1));
    }

    @Test
    void numericGroupsDigitsInFoursAroundThePoint() {
        assertBinary(TypeOids.NUMERIC, "1.500",
                "0002" // ndigits
                + "0000" // weight: the first group is 10000^0
                + "0000" // sign: positive
                + "0003" // dscale: three fractional digits in the text
                + "0001" + "1388"); // 1 . 5000
        assertBinary(TypeOids.NUMERIC, "-12345678.9",
                "0003" + "0001" // 1234 5678 . 9000: weight 1
                + "4000" // negative
                + "0001" + "04d2" + "162e" + "2328");
        assertBinary(TypeOids.NUMERIC, "0.000000000001",
                "0001" + "fffd" // weight -3: 0.0000 0000 0001
                + "0000" + "000c" + "0001");
        assertBinary(TypeOids.NUMERIC, "0.00", "0000" + "0000" + "0000" + "0002");
        assertBinary(TypeOids.NUMERIC, "NaN", "0000" + "0000" + "c000" + "0000");
    }

    @Test
    void arraysWriteHeaderDimensionsAndFramedElements() {
        assertBinary(TypeOids.INT4_ARRAY, "[0:1]={7,NULL}",
                "00000001" // ndim
                + "00000001" // has nulls
                + "00000017" // element type int4
                + "00000002" + "00000000" // size 2, lower bound 0
                + "00000004" + "00000007" // 7
                + "ffffffff"); // NULL
        assertBinary(TypeOids.TEXT_ARRAY, "{}", "00000000" + "00000000" + "00000019");
        assertBinary(TypeOids.TEXT_ARRAY, "{{\"a\\\"\",b}}",
                "00000002" + "00000000" + "00000019"
                + "00000001" + "00000001" // outer dimension: 1
                + "00000002" + "00000001" // inner dimension: 2
                + "00000002" + "6122" // a" once the backslash is gone
                + "00000001" + "62"); // b
    }

    @Test
    void charReadsTheOctalFormOfPostgres15AndTheRawByteOfEarlierVersions() {
        assertBinary(TypeOids.CHAR, "\\377", "ff");
        assertBinary(TypeOids.CHAR, "\\200", "80");
        assertBinary(TypeOids.CHAR, "\\", "5c");
        assertBinary(TypeOids.CHAR, "", "00");
        assertArrayEquals(new byte[] {(byte) 0xFF}, BinaryEncoders.find(TypeOids.CHAR).orElseThrow()
                .toBinary(new byte[] {(byte) 0xFF}));
        assertBinary(TypeOids.CHAR_ARRAY, "{\"\\\\377\",\"\"}",
                "00000001" + "00000000" + "00000012" // one dimension, no NULL, element type "char"
                + "00000002" + "00000001" // size 2, lower bound 1
                + "00000001" + "ff" // \377
                + "00000001" + "00"); // the empty text is the zero byte
    }

    @Test
    void inetWritesFamilyBitsCidrFlagLengthAndAddress() {
        assertBinary(TypeOids.INET, "::ffff:1.2.3.4/120",
                "03" // PGSQL_AF_INET6
                + "78" // 120 bits
                + "00" // inet, not cidr
                + "10" // 16 address bytes
                + "00000000000000000000ffff01020304");
        assertBinary(TypeOids.CIDR, "10.0.0.0/8", "02" + "08" + "01" + "04" + "0a000000");
        assertBinary(TypeOids.INET, "1.2.3.4", "02" + "20" + "00" + "04" + "01020304");
        assertBinary(TypeOids.INET, "1:2:3::", "03" + "80" + "00" + "10" + "00010002000300000000000000000000");
        assertBinary(TypeOids.INET, "1::2:3", "03" + "80" + "00" + "10" + "00010000000000000000000000020003");
        assertBinary(TypeOids.INET, "1:2:3:4:5:6:1.2.3.4", "03" + "80" + "00" + "10"
                + "00010002000300040005000601020304");
        assertBinary(TypeOids.CIDR, "::/0", "03" + "00" + "01" + "10" + "00000000000000000000000000000000");
        assertBinary(TypeOids.MACADDR8, "08:00:2b:ff:fe:01:02:03", "08002bfffe010203");
    }

    @Test
    void rangesWriteFlagsThenEachPresentBound() {
        assertBinary(TypeOids.INT4RANGE, "[1,5)",
                "02" // RANGE_LB_INC
                + "00000004" + "00000001" // lower bound 1
                + "00000004" + "00000005"); // upper bound 5
        assertBinary(TypeOids.INT4RANGE, "empty", "01");
        assertBinary(TypeOids.INT4RANGE, "(,)", "18"); // RANGE_LB_INF | RANGE_UB_INF, no bounds
        assertBinary(TypeOids.NUMRANGE, "(,1.5]", "0c" // RANGE_UB_INC | RANGE_LB_INF
                + "0000000c" + "0002" + "0000" + "0000" + "0001" + "0001" + "1388");
        String epoch = "00000008" + "0000000000000000"; // 2000-01-01 00:00:00 UTC
        assertBinary(TypeOids.TSTZRANGE, "[\"2000-01-01 05:30:00+05:30\",)", "12" + epoch);
        assertBinary(TypeOids.TSTZRANGE, "[2000-01-01\\ 00:00:00+00,)", "12" + epoch);
        assertBinary(TypeOids.TSTZRANGE, "(,\"2000-01-01 00:00:0\\0+00\"]", "0c" + epoch);
        assertBinary(TypeOids.INT4MULTIRANGE, "{[1,3),[5,7)}",
                "00000002" // two ranges
                + "00000011" + "02" + "00000004" + "00000001" + "00000004" + "00000003"
                + "00000011" + "02" + "00000004" + "00000005" + "00000004" + "00000007");
        assertBinary(TypeOids.INT4MULTIRANGE, "{}", "00000000");
    }

    @Test
    void timestampWithTimeZoneSubtractsOffsetsToTheSecond() {
        // 1900-01-01 00:19:32 at +00:19:32 is 1900-01-01 00:00:00 UTC: -36524 days from 2000-01-01
        long micros = -36524L * 86_400_000_000L;
        assertBinary(TypeOids.TIMESTAMPTZ, "1900-01-01 00:19:32+00:19:32", HexFormat.of().toHexDigits(micros));
        assertBinary(TypeOids.TIMESTAMPTZ, "2000-01-01 05:30:00+05:30", "0000000000000000");
        assertBinary(TypeOids.TIMESTAMPTZ, "1999-12-31 20:30:00-03:30", "0000000000000000");
    }

    @Test
    void convertsASliceOfALargerArrayAndAppendsAfterWhatTheBufferHolds() {
        byte[] row = "xx-42yy".getBytes(StandardCharsets.US_ASCII);
        ValueEncoder int2 = BinaryEncoders.find(TypeOids.INT2).orElseThrow();
        assertArrayEquals(new byte[] {(byte) 0xFF, (byte) 0xD6}, int2.toBinary(row, 2, 3));
        ByteBuf out = Unpooled.buffer();
        out.writeByte('D');
        int2.writeWithLength(row, 2, 3, out);
        BinaryEncoders.find(TypeOids.TEXT).orElseThrow().writeWithLength(row, 5, 2, out);
        assertEquals("44" + "00000002" + "ffd6" + "00000002" + "7979", hex(out));
    }

    @Test
    void rejectsTextNoBackendWouldSend() {
        assertMalformed(TypeOids.INT4, "12a");
        assertMalformed(TypeOids.INT4, "");
        assertMalformed(TypeOids.INT2, "40000");
        assertMalformed(TypeOids.INT8, "9223372036854775808");
        assertMalformed(TypeOids.OID, "-1");
        assertMalformed(TypeOids.BOOL, "true");
        assertMalformed(TypeOids.FLOAT8, "1.2.3");
        assertMalformed(TypeOids.FLOAT4, "inf");
        assertMalformed(TypeOids.NUMERIC, "1e5");
        assertMalformed(TypeOids.NUMERIC, "-");
        assertMalformed(TypeOids.UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1");
        assertMalformed(TypeOids.BYTEA, "\\x0");
        assertMalformed(TypeOids.BYTEA, "\\9");
        assertMalformed(TypeOids.DATE, "2024-1-31");
        assertMalformed(TypeOids.TIME, "12:34");
        assertMalformed(TypeOids.TIME, "12:34:56.1234567");
        assertMalformed(TypeOids.TIMESTAMP, "2024-01-31T12:34:56");
        assertMalformed(TypeOids.TIMESTAMPTZ, "2024-01-31 12:34:56");
        assertMalformed(TypeOids.INTERVAL, "1 fortnight");
        assertMalformed(TypeOids.INTERVAL, "P1Y");
        assertMalformed(TypeOids.INT4_ARRAY, "{1,2");
        assertMalformed(TypeOids.INT4_ARRAY, "{1,{2}}");
        assertMalformed(TypeOids.INT4_ARRAY, "[1:2]={{1,2}}");
        assertMalformed(TypeOids.TEXT_ARRAY, "{\"a}");
        assertMalformed(TypeOids.INT4_ARRAY, "1,2");
        assertMalformed(TypeOids.CHAR, "ab");
        assertMalformed(TypeOids.CHAR, "\\400");
        assertMalformed(TypeOids.CHAR, "\\12");
        assertMalformed(TypeOids.CHAR, "a\\77");
        assertMalformed(TypeOids.INET, "1.2.3");
        assertMalformed(TypeOids.INET, "1.2.3.4.5");
        assertMalformed(TypeOids.INET, "256.0.0.1");
        assertMalformed(TypeOids.INET, "1.2.3.4/33");
        assertMalformed(TypeOids.INET, "1.2.3.4/");
        assertMalformed(TypeOids.INET, "");
        assertMalformed(TypeOids.INET, "::1/129");
        assertMalformed(TypeOids.INET, "1:2:3:4:5:6:7:8:9");
        assertMalformed(TypeOids.INET, "1:2:3:4:5:6:7");
        assertMalformed(TypeOids.INET, "1::2::3");
        assertMalformed(TypeOids.INET, "1:2:3:4:5:6:7:8::");
        assertMalformed(TypeOids.INET, ":1::");
        assertMalformed(TypeOids.INET, "1::2:");
        assertMalformed(TypeOids.INET, "12345::");
        assertMalformed(TypeOids.INET, "::1.2.3.4:5");
        assertMalformed(TypeOids.INET, "g::1");
        assertMalformed(TypeOids.CIDR, "1:2:3:4:5:6:7:1.2.3.4");
        assertMalformed(TypeOids.MACADDR, "08:00:2b:01:02");
        assertMalformed(TypeOids.MACADDR, "08-00-2b-01-02-03");
        assertMalformed(TypeOids.MACADDR8, "08:00:2b:01:02:03");
        assertMalformed(TypeOids.INT4RANGE, "[1,2");
        assertMalformed(TypeOids.INT4RANGE, "1,2)");
        assertMalformed(TypeOids.INT4RANGE, "[1;2)");
        assertMalformed(TypeOids.INT4RANGE, "emptyx");
        assertMalformed(TypeOids.INT4RANGE, "[\"1,2)");
        assertMalformed(TypeOids.INT4RANGE, "[1,2)x");
        assertMalformed(TypeOids.INT4RANGE, "[1,2\\");
        assertMalformed(TypeOids.INT4RANGE, "");
        assertMalformed(TypeOids.INT4RANGE, "[\"\",2)");
        assertMalformed(TypeOids.INT4MULTIRANGE, "{[1,2),}");
        assertMalformed(TypeOids.INT4MULTIRANGE, "{[1,2)");
        assertMalformed(TypeOids.INT4MULTIRANGE, "[1,2)");
        assertMalformed(TypeOids.INT4MULTIRANGE, "{[1,2)[3,4)}");
        assertMalformed(TypeOids.INT4MULTIRANGE, "{,[1,2)}");
    }

    private static void assertBinary(int typeOid, String text, String expectedHex) {
        byte[] actual = BinaryEncoders.find(typeOid).orElseThrow().toBinary(text.getBytes(StandardCharsets.UTF_8));
        assertEquals(expectedHex, HexFormat.of().formatHex(actual), text);
    }

    private static void assertMalformed(int typeOid, String text) {
        ValueEncoder encoder = BinaryEncoders.find(typeOid).orElseThrow();
        assertThrows(IllegalArgumentException.class,
                () -> encoder.toBinary(text.getBytes(StandardCharsets.UTF_8)), text);
    }

    private static String hex(ByteBuf buffer) {
        byte[] bytes = new byte[buffer.readableBytes()];
        buffer.readBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
