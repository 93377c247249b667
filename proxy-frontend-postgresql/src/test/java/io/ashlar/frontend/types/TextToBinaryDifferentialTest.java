package io.ashlar.frontend.types;

import io.ashlar.merge.value.TypeOids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every conversion checked against PostgreSQL itself: the same values are fetched in text (what
 * Ashlar's backend connections see) and in binary (what the type's send function writes), and
 * the encoder must turn the first into exactly the second.
 */
final class TextToBinaryDifferentialTest {

    private static final String[] ZONES = {
        "UTC", "Europe/Amsterdam", "Asia/Kolkata", "America/St_Johns", "Asia/Kathmandu", "Pacific/Chatham",
        "America/Los_Angeles", "Australia/Lord_Howe",
    };
    private static final HexFormat HEX = HexFormat.of();

    private static PostgresValues postgres;

    @BeforeAll
    static void startPostgres() throws IOException, SQLException {
        postgres = PostgresValues.start();
    }

    @AfterAll
    static void stopPostgres() throws IOException, SQLException {
        postgres.close();
    }

    @AfterEach
    void resetSession() throws SQLException {
        postgres.execute("RESET ALL");
    }

    @Test
    void integers() throws Exception {
        assertColumns(TypeOids.INT2, "0::int2", "1::int2", "(-1)::int2", "32767::int2", "(-32768)::int2",
                "12345::int2");
        assertColumns(TypeOids.INT4, "0", "2147483647", "(-2147483648)::int4", "42", "-7", "1000000");
        assertColumns(TypeOids.INT8, "9223372036854775807", "(-9223372036854775808)::int8", "0::int8",
                "1234567890123", "(-1)::int8");
        assertColumns(TypeOids.OID, "0::oid", "4294967295::oid", "2147483648::oid", "26::oid", "2147483647::oid");
    }

    @Test
    void booleans() throws Exception {
        assertColumns(TypeOids.BOOL, "true", "false");
    }

    @Test
    void doubles() throws Exception {
        assertColumns(TypeOids.FLOAT8, "0::float8", "'-0'::float8", "1::float8", "(-1)::float8", "0.1::float8",
                "1e300::float8", "1e-300::float8", "'4.9e-324'::float8", "'2.2250738585072014e-308'::float8",
                "'2.225073858507201e-308'::float8", "'1.7976931348623157e308'::float8", "'NaN'::float8",
                "'Infinity'::float8", "'-Infinity'::float8", "pi()", "0.1::float8 + 0.2::float8",
                "123456789012345680::float8", "1e22::float8", "1e23::float8", "100::float8", "1.5e-7::float8",
                "(-2.5)::float8", "9007199254740993::float8", "1e15::float8", "1e16::float8", "123.456e-5::float8");
    }

    @Test
    void randomDoubles() throws Exception {
        Random random = new Random(42);
        List<String> literals = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            double value = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> Math.round(random.nextDouble() * 1e6) / Math.pow(10, random.nextInt(8));
                default -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(40) - 20);
            };
            if (Double.isFinite(value)) {
                literals.add("'" + value + "'::float8");
            }
        }
        assertRows(TypeOids.FLOAT8, literals);
    }

    @Test
    void floats() throws Exception {
        assertColumns(TypeOids.FLOAT4, "0::float4", "'-0'::float4", "1.1::float4", "'3.4028235e38'::float4",
                "'1.4e-45'::float4", "'1.17549435e-38'::float4", "'NaN'::float4", "'Infinity'::float4",
                "'-Infinity'::float4", "16777217::float4", "0.1::float4", "1e10::float4", "1e-10::float4",
                "123.456::float4", "(-7.25)::float4", "1e11::float4", "3.14159274::float4");
    }

    @Test
    void randomFloats() throws Exception {
        Random random = new Random(7);
        List<String> literals = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            float value = i % 2 == 0 ? Float.intBitsToFloat(random.nextInt())
                    : (float) ((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(20) - 10));
            if (Float.isFinite(value)) {
                literals.add("'" + value + "'::float4");
            }
        }
        assertRows(TypeOids.FLOAT4, literals);
    }

    @Test
    void numerics() throws Exception {
        assertColumns(TypeOids.NUMERIC, "0::numeric", "0.000::numeric", "'-0'::numeric", "1::numeric",
                "(-1)::numeric", "0.000000000001", "-123456789012345678901234567890.123", "1e-30::numeric",
                "1.500", "100.00", "10000::numeric", "100000000::numeric", "9999.9999", "10000.0001",
                "0.0001", "0.00010", "12345678.87654321", "'NaN'::numeric", "'Infinity'::numeric",
                "'-Infinity'::numeric", "1::numeric / 3", "sqrt(2::numeric)", "2::numeric ^ 200",
                "'1e1000'::numeric", "'-1e-1000'::numeric", "123.45::numeric(10, 4)", "round(1234.5678, 2)",
                "1000000000000000000000::numeric", "0.1", "-0.5", "99999999::numeric", "5e-324::numeric");
    }

    @Test
    void randomNumerics() throws Exception {
        Random random = new Random(11);
        List<String> literals = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            StringBuilder literal = new StringBuilder(random.nextBoolean() ? "-" : "");
            int integerDigits = random.nextInt(30);
            int fractionDigits = random.nextInt(30);
            appendDigits(literal.append(integerDigits == 0 ? "0" : ""), integerDigits, random);
            if (fractionDigits > 0) {
                appendDigits(literal.append('.'), fractionDigits, random);
            }
            literals.add("'" + literal + "'::numeric");
        }
        assertRows(TypeOids.NUMERIC, literals);
    }

    @Test
    void textLikeTypes() throws Exception {
        assertColumns(TypeOids.TEXT, "''::text", "'hello'::text", "'héllo ☃ 😀'::text",
                "E'tab\\tnew\\nline'::text",
                "repeat('x', 10000)");
        assertColumns(TypeOids.VARCHAR, "'abc'::varchar(10)", "''::varchar", "'ü'::varchar");
        assertColumns(TypeOids.BPCHAR, "'x'::char(5)", "'abc'::bpchar", "'é'::char(3)");
        assertColumns(TypeOids.NAME, "'pg_catalog'::name", "''::name", "current_user");
        assertColumns(TypeOids.JSON, "'{\"a\": [1, 2.50, \"x\"]}'::json", "' { \"spaced\" : true } '::json",
                "'\"ü\"'::json");
        assertColumns(TypeOids.JSONB, "'{\"b\": 1, \"a\": [true, null, 1.50]}'::jsonb", "'\"str\"'::jsonb",
                "'null'::jsonb", "'{\"ü\": \"☃\"}'::jsonb", "'[]'::jsonb");
    }

    @Test
    void byteas() throws Exception {
        String allBytes = allBytesLiteral();
        assertColumns(TypeOids.BYTEA, "'\\x'::bytea", "'\\x00ff10'::bytea", "decode('deadbeef', 'hex')", allBytes);
        postgres.execute("SET bytea_output = escape");
        assertColumns(TypeOids.BYTEA, "'\\x'::bytea", "'\\x00ff10'::bytea", "'\\x5c5c'::bytea", allBytes,
                "'abc'::bytea");
    }

    @Test
    void voidResults() throws Exception {
        assertColumns(TypeOids.VOID, "pg_sleep(0)", "pg_advisory_xact_lock(1)", "pg_notify('c', 'p')");
    }

    @Test
    void uuids() throws Exception {
        assertColumns(TypeOids.UUID, "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid",
                "'00000000-0000-0000-0000-000000000000'::uuid", "'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'::uuid",
                "'{12345678-1234-5678-1234-567812345678}'::uuid");
    }

    @Test
    void dates() throws Exception {
        assertColumns(TypeOids.DATE, "'2000-01-01'::date", "'2024-01-31'::date", "'1999-12-31'::date",
                "'0001-01-01'::date", "'0001-12-31 BC'::date", "'0044-03-15 BC'::date", "'4713-01-01 BC'::date",
                "'5874897-12-31'::date", "'infinity'::date", "'-infinity'::date", "'2024-02-29'::date",
                "'1900-03-01'::date", "'1582-10-10'::date", "'10000-06-15'::date", "'1970-01-01'::date");
    }

    @Test
    void times() throws Exception {
        assertColumns(TypeOids.TIME, "'00:00:00'::time", "'23:59:59.999999'::time", "'24:00:00'::time",
                "'12:34:56.789'::time", "'01:02:03.000001'::time", "'12:00:00.1'::time");
    }

    @Test
    void pointsAndBoxes() throws Exception {
        assertColumns(TypeOids.POINT, "'(1,2)'::point", "'(-1.5,2.25e10)'::point", "'(0.1,-0)'::point",
                "point(1e-300, 'infinity')", "point('NaN', 3)");
        assertColumns(TypeOids.BOX, "'((1,2),(3,4))'::box", "'(-1.5,0.1),(2.5,-7)'::box");
        assertColumns(TypeOids.POINT_ARRAY, "ARRAY['(1,2)'::point, NULL, '(3.5,-4)'::point]");
    }

    @Test
    void timesWithTimeZone() throws Exception {
        assertColumns(TypeOids.TIMETZ, "'13:45:30.25+02'::timetz", "'00:00:00-05:30'::timetz",
                "'23:59:59.999999+14'::timetz", "'12:00:00+00'::timetz", "'04:05:06-08:00:15'::timetz");
        assertColumns(TypeOids.TIMETZ_ARRAY, "ARRAY['13:45:30+02'::timetz, NULL]");
    }

    @Test
    void timestamps() throws Exception {
        assertColumns(TypeOids.TIMESTAMP, "'2000-01-01 00:00:00'::timestamp", "'2024-01-31 12:34:56.789'::timestamp",
                "'1999-12-31 23:59:59.999999'::timestamp", "'0044-03-15 12:00:00 BC'::timestamp",
                "'4713-01-01 00:00:00 BC'::timestamp", "'294276-12-31 23:59:59.999999'::timestamp",
                "'infinity'::timestamp", "'-infinity'::timestamp", "'1970-01-01 00:00:00.000001'::timestamp",
                "'10000-01-01 00:00:00'::timestamp", "'0001-01-01 00:00:00 BC'::timestamp");
        assertRows(TypeOids.TIMESTAMP, randomTimestamps(new Random(3), "timestamp"));
    }

    @Test
    void timestampsWithTimeZone() throws Exception {
        List<String> randoms = randomTimestamps(new Random(5), "timestamptz");
        for (String zone : ZONES) {
            postgres.execute("SET TimeZone = '" + zone + "'");
            assertColumns(TypeOids.TIMESTAMPTZ, "'2000-01-01 00:00:00+00'::timestamptz",
                    "'2024-01-31 12:34:56.789+01'::timestamptz", "'2024-07-01 12:00:00'::timestamptz",
                    "'1900-01-01 00:00:00+00'::timestamptz", "'1850-06-01 12:00:00'::timestamptz",
                    "'2024-03-31 01:30:00+00'::timestamptz", "'2024-10-27 01:30:00+00'::timestamptz",
                    "'0044-03-15 12:00:00+00 BC'::timestamptz", "'294276-12-31 23:59:59.999999+00'::timestamptz",
                    "'4713-01-01 00:00:00+00 BC'::timestamptz", "'infinity'::timestamptz", "'-infinity'::timestamptz",
                    "'1999-12-31 23:59:59.999999+05:30'::timestamptz");
            assertRows(TypeOids.TIMESTAMPTZ, randoms);
        }
    }

    @Test
    void intervals() throws Exception {
        assertColumns(TypeOids.INTERVAL, "'0'::interval", "'1 year 2 mons 3 days 04:05:06.789'::interval",
                "'-1 year -2 mons +3 days -04:05:06'::interval", "'1 day -00:00:01'::interval",
                "'-00:00:00.000001'::interval", "'178956970 years 7 mons'::interval",
                "'-178956970 years -8 mons'::interval", "'2147483647 days'::interval", "'-2147483648 days'::interval",
                "'1000000 hours'::interval", "'1 mon'::interval", "'1 year'::interval", "'-1 days'::interval",
                "'00:00:00.5'::interval", "'12 mons'::interval", "'-1 days +02:00:00'::interval",
                "'1 year -1 mons'::interval", "make_interval(secs => 0.000001)", "'2 years 1 day'::interval");
        Random random = new Random(9);
        List<String> literals = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            literals.add("'" + signed(random, 300) + " years " + signed(random, 30) + " mons " + signed(random, 400)
                    + " days " + signed(random, 100) + " hours " + signed(random, 100) + " minutes "
                    + signed(random, 100) + "." + random.nextInt(1_000_000) + " seconds'::interval");
        }
        assertRows(TypeOids.INTERVAL, literals);
    }

    @Test
    void arraysOfNumbersAndBooleans() throws Exception {
        assertColumns(TypeOids.INT4_ARRAY, "'{}'::int4[]", "'{1,2,NULL}'::int4[]", "'{{1,2},{3,4}}'::int4[]",
                "'[2:3]={1,2}'::int4[]", "'[-2:-1][0:1]={{1,2},{3,4}}'::int4[]", "'{{{1},{2}},{{3},{4}}}'::int4[]",
                "'{NULL}'::int4[]", "'{{{{{{7}}}}}}'::int4[]", "ARRAY[-2147483648, 2147483647]",
                "'{{NULL,NULL},{NULL,1}}'::int4[]");
        assertColumns(TypeOids.INT2_ARRAY, "'{1,-32768,32767}'::int2[]", "'{}'::int2[]");
        assertColumns(TypeOids.INT8_ARRAY, "'{9223372036854775807,NULL,-9223372036854775808}'::int8[]");
        assertColumns(TypeOids.OID_ARRAY, "'{0,4294967295}'::oid[]");
        assertColumns(TypeOids.BOOL_ARRAY, "'{t,f,NULL}'::bool[]", "'{{t},{f}}'::bool[]");
        assertColumns(TypeOids.FLOAT4_ARRAY, "'{1.1,NaN,-Infinity,-0,3.4028235e38}'::float4[]");
        assertColumns(TypeOids.FLOAT8_ARRAY, "'{0.1,NaN,Infinity,-0,1e-300,NULL}'::float8[]");
        assertColumns(TypeOids.NUMERIC_ARRAY, "'{1.500,NaN,-0.0001,NULL,123456789012345678901234567890}'::numeric[]",
                "'[0:1]={Infinity,-Infinity}'::numeric[]");
    }

    @Test
    void arraysOfTextLikeTypes() throws Exception {
        assertColumns(TypeOids.TEXT_ARRAY,
                "ARRAY['a b', 'c\"d', NULL, 'NULL', 'null', '', 'back\\slash', '{braces}', 'comma,', 'ünï', ' lead']",
                "'{{a,b},{c,d}}'::text[]", "'{}'::text[]", "ARRAY[E'tab\\there', 'x=y', '[1:2]']",
                "ARRAY['\\\\', '\"', '\"\"']");
        assertColumns(TypeOids.VARCHAR_ARRAY, "ARRAY['x', NULL, 'y z']::varchar[]");
        assertColumns(TypeOids.BPCHAR_ARRAY, "ARRAY['a', 'bc']::char(3)[]");
        assertColumns(TypeOids.NAME_ARRAY, "ARRAY['pg_catalog', 'a b']::name[]");
        assertColumns(TypeOids.JSON_ARRAY, "ARRAY['{\"a\": \"b\\\"c\"}', '[1, 2]', NULL]::json[]");
        assertColumns(TypeOids.JSONB_ARRAY, "ARRAY['{\"a\": \"b\\\"c\"}', '[1, 2]', 'null', NULL]::jsonb[]");
        assertColumns(TypeOids.UUID_ARRAY, "ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, NULL]");
        assertColumns(TypeOids.BYTEA_ARRAY, "ARRAY['\\x00ff'::bytea, NULL, ''::bytea, '\\x5c22'::bytea]");
        postgres.execute("SET bytea_output = escape");
        assertColumns(TypeOids.BYTEA_ARRAY, "ARRAY['\\x00ff'::bytea, NULL, ''::bytea, '\\x5c22'::bytea, 'a b'::bytea]");
    }

    @Test
    void arraysOfDateTimeTypes() throws Exception {
        assertColumns(TypeOids.DATE_ARRAY, "'{2024-01-31,infinity,NULL}'::date[]", "ARRAY['0044-03-15 BC'::date]");
        assertColumns(TypeOids.TIME_ARRAY, "'{12:34:56.789,24:00:00}'::time[]");
        assertColumns(TypeOids.TIMESTAMP_ARRAY,
                "ARRAY['2024-01-31 12:34:56.789'::timestamp, '0044-03-15 12:00:00 BC', '-infinity', NULL]");
        assertColumns(TypeOids.INTERVAL_ARRAY, "ARRAY['1 year 2 mons 3 days 04:05:06.789'::interval, '0', NULL]");
        for (String zone : ZONES) {
            postgres.execute("SET TimeZone = '" + zone + "'");
            assertColumns(TypeOids.TIMESTAMPTZ_ARRAY,
                    "ARRAY['2024-01-31 12:34:56.789+01'::timestamptz, '1900-01-01 00:00:00+00', "
                            + "'0044-03-15 12:00:00+00 BC', 'infinity', NULL]");
        }
    }

    @Test
    void everyTypeOfTheBriefIsSupported() throws Exception {
        List<String> expressions = List.of("true", "'\\x01'::bytea", "'n'::name", "1::int8", "1::int2", "1",
                "'t'::text",
                "1::oid", "'1'::json", "1::float4", "1::float8", "'c'::bpchar", "'v'::varchar", "current_date",
                "'12:00'::time", "'2024-01-01'::timestamp", "'2024-01-01'::timestamptz", "'1 day'::interval",
                "1::numeric", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "'1'::jsonb");
        List<PostgresValues.Value> scalars = postgres.values(select(expressions));
        List<String> arrays = new ArrayList<>();
        for (String expression : expressions) {
            arrays.add("ARRAY[" + expression + "]");
        }
        List<PostgresValues.Value> arrayValues = postgres.values(select(arrays));
        assertEquals(21, scalars.size());
        assertEquals(21, arrayValues.size());
        assertConverted(scalars);
        assertConverted(arrayValues);
    }

    @Test
    void chars() throws Exception {
        assertColumns(TypeOids.CHAR, "'a'::\"char\"", "''::\"char\"", "'\\377'::\"char\"", "(-1)::\"char\"",
                "(-128)::\"char\"", "127::\"char\"", "0::\"char\"", "1::\"char\"", "' '::\"char\"", "','::\"char\"",
                "'\"'::\"char\"", "'\\'::\"char\"", "'{'::\"char\"", "'é'::\"char\"", "'N'::\"char\"",
                "'abc'::\"char\"");
        List<String> everyByte = new ArrayList<>();
        for (int b = -128; b < 128; b++) {
            everyByte.add("(" + b + ")::\"char\"");
        }
        assertRows(TypeOids.CHAR, everyByte);
        List<PostgresValues.Value> catalog =
                postgres.values("SELECT typtype, typcategory, typalign, typstorage, typdelim FROM pg_type");
        assertTypes(TypeOids.CHAR, catalog);
        assertConverted(catalog);
    }

    @Test
    void charArrays() throws Exception {
        assertColumns(TypeOids.CHAR_ARRAY, "'{}'::\"char\"[]", "ARRAY['a', 'b']::\"char\"[]",
                "ARRAY['', ',', '\"', '\\', ' ', 'N', '{', '}', NULL]::\"char\"[]",
                "ARRAY[(-1)::\"char\", NULL, 0::\"char\", (-128)::\"char\", 'é'::\"char\"]",
                "ARRAY[ARRAY['a', 'b'], ARRAY['c', NULL]]::\"char\"[]", "(SELECT array_agg(typtype) FROM pg_type)");
    }

    @Test
    void inets() throws Exception {
        assertColumns(TypeOids.INET, "'192.168.0.1'::inet", "'192.168.0.1/24'::inet", "'0.0.0.0/0'::inet",
                "'0.0.0.0'::inet", "'255.255.255.255'::inet", "'255.255.255.255/32'::inet", "'10.0.0.0/8'::inet",
                "'1.2.3.4/0'::inet", "'::1'::inet", "'::'::inet", "'::/0'::inet", "'::1/128'::inet",
                "'2001:db8::1'::inet", "'2001:db8::/32'::inet", "'2001:DB8:0:0:1:0:0:1'::inet",
                "'2001:0:0:1:0:0:0:1'::inet", "'fe80::1:2:3:4/64'::inet", "'1:2:3:4:5:6:7:8'::inet",
                "'1:0:3:4:5:6:7:8'::inet", "'1:0:0:4:5:6:7:8'::inet", "'::ffff:1.2.3.4'::inet",
                "'::ffff:1.2.3.4/120'::inet", "'::ffff:0:0'::inet", "'::1.2.3.4'::inet", "'::0.0.0.2'::inet",
                "'::0.1.0.1'::inet", "'::1:0:0:0'::inet", "'1::'::inet", "'1:2:3:4:5:6:7::'::inet",
                "'::2:3:4:5:6:7:8'::inet", "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/127'::inet",
                "'64:ff9b::192.0.2.33'::inet", "'0:0:0:0:0:0:0:0/64'::inet", "'1:0:0:0:0:0:0:0'::inet",
                "'0:0:0:0:0:0:0:1/1'::inet", "'::ffff:255.255.255.255'::inet", "'::ffff:1:2'::inet",
                "'::fffe:1.2.3.4'::inet", "'1:2:0:0:5:6:0:0'::inet", "'abcd:ef01:2345:6789:abcd:ef01:2345:6789'::inet");
        assertColumns(TypeOids.CIDR, "'0.0.0.0/0'::cidr", "'10.0.0.0/8'::cidr", "'10'::cidr", "'192.168'::cidr",
                "'192.168.1.0/24'::cidr", "'192.168.1.1/32'::cidr", "'192.168.1.1'::cidr", "'128.0.0.0/1'::cidr",
                "'::/0'::cidr", "'2001:db8::/32'::cidr", "'::1/128'::cidr", "'::1'::cidr",
                "'::ffff:1.2.3.0/120'::cidr", "'::ffff:1.2.3.4'::cidr", "'::1.2.3.4/128'::cidr",
                "'8000::/1'::cidr", "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127'::cidr", "'fe80::/10'::cidr",
                "'2001:db8:0:0:1::/80'::cidr");
        Random random = new Random(13);
        List<String> inets = new ArrayList<>();
        List<String> cidrs = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            boolean ipv6 = i % 2 == 1;
            String address = ipv6 ? randomIpv6(random) : randomIpv4(random);
            int bits = random.nextInt(3) == 0 ? (ipv6 ? 128 : 32) : random.nextInt(ipv6 ? 129 : 33);
            inets.add("'" + address + "/" + bits + "'::inet");
            cidrs.add("network('" + address + "/" + bits + "'::inet)");
        }
        assertRows(TypeOids.INET, inets);
        assertRows(TypeOids.CIDR, cidrs);
    }

    @Test
    void inetArrays() throws Exception {
        assertColumns(TypeOids.INET_ARRAY, "'{}'::inet[]", "ARRAY['192.168.0.1/24', NULL, '::1', '::ffff:1.2.3.4', "
                + "'2001:db8::/32']::inet[]", "ARRAY[ARRAY['1.2.3.4'::inet], ARRAY[NULL::inet]]");
        assertColumns(TypeOids.CIDR_ARRAY, "'{}'::cidr[]", "ARRAY['10.0.0.0/8', NULL, '::/0', '::1/128', "
                + "'192.168.1.1/32']::cidr[]");
    }

    @Test
    void macaddrs() throws Exception {
        assertColumns(TypeOids.MACADDR, "'08:00:2b:01:02:03'::macaddr", "'08-00-2B-01-02-03'::macaddr",
                "'0800.2b01.0203'::macaddr", "'00:00:00:00:00:00'::macaddr", "'ff:ff:ff:ff:ff:ff'::macaddr",
                "'a0b1c2d3e4f5'::macaddr");
        assertColumns(TypeOids.MACADDR8, "'08:00:2b:01:02:03:04:05'::macaddr8", "'08:00:2b:01:02:03'::macaddr8",
                "'08002b:0102030405'::macaddr8", "'00:00:00:00:00:00:00:00'::macaddr8",
                "'FF:FF:FF:FF:FF:FF:FF:FF'::macaddr8", "macaddr8_set7bit('00:00:2b:01:02:03'::macaddr8)",
                "'08:00:2b:01:02:03'::macaddr::macaddr8");
        assertColumns(TypeOids.MACADDR_ARRAY, "'{}'::macaddr[]",
                "ARRAY['08:00:2b:01:02:03', NULL, 'ff:ff:ff:ff:ff:ff']::macaddr[]");
        assertColumns(TypeOids.MACADDR8_ARRAY,
                "ARRAY['08:00:2b:01:02:03:04:05', NULL, '08:00:2b:01:02:03']::macaddr8[]");
    }

    @Test
    void discreteRanges() throws Exception {
        assertColumns(TypeOids.INT4RANGE, "'empty'::int4range", "'[1,2)'::int4range", "'[1,2]'::int4range",
                "'(1,2)'::int4range", "'(1,3)'::int4range", "'(,5)'::int4range", "'(,5]'::int4range",
                "'[5,)'::int4range", "'(5,)'::int4range", "'(,)'::int4range", "'[,]'::int4range",
                "'[-2147483648,2147483647)'::int4range", "int4range(NULL, NULL)", "int4range(1, 10, '(]')",
                "int4range(-5, -5, '[]')", "int4range(0, 0)", "' [ 3 , 7 ) '::int4range", "'EMPTY'::int4range");
        assertColumns(TypeOids.INT8RANGE, "'empty'::int8range", "'[1,2)'::int8range",
                "'[-9223372036854775808,9223372036854775807)'::int8range", "'(,0]'::int8range",
                "'[1234567890123,)'::int8range", "int8range(NULL, 5, '[]')");
        assertColumns(TypeOids.DATERANGE, "'empty'::daterange", "'[2024-01-01,2024-02-01)'::daterange",
                "'[2024-01-01,2024-01-31]'::daterange", "'(2024-01-01,2024-01-31)'::daterange",
                "'(,2024-01-01)'::daterange", "'[2024-01-01,)'::daterange", "'[-infinity,infinity]'::daterange",
                "'(-infinity,infinity)'::daterange", "'[0044-03-15 BC,2024-01-01)'::daterange",
                "'[4713-01-01 BC,5874897-12-31)'::daterange", "daterange(NULL, NULL)", "'(,)'::daterange");
        Random random = new Random(17);
        List<String> literals = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            String lower = random.nextInt(8) == 0 ? "" : Integer.toString(random.nextInt(2001) - 1000);
            String upper = random.nextInt(8) == 0 ? "" : Integer.toString(random.nextInt(2001) - 1000);
            if (!lower.isEmpty() && !upper.isEmpty() && Integer.parseInt(lower) > Integer.parseInt(upper)) {
                String swap = lower;
                lower = upper;
                upper = swap;
            }
            literals.add("'" + (random.nextBoolean() ? "[" : "(") + lower + "," + upper
                    + (random.nextBoolean() ? "]" : ")") + "'::int4range");
        }
        assertRows(TypeOids.INT4RANGE, literals);
    }

    @Test
    void continuousRanges() throws Exception {
        assertColumns(TypeOids.NUMRANGE, "'empty'::numrange", "'[1.5,2.50)'::numrange", "'(1.5,2.50]'::numrange",
                "'[0,0]'::numrange", "'(,0]'::numrange", "'[0,)'::numrange", "'(,)'::numrange",
                "'[-Infinity,Infinity]'::numrange", "'[-123456789012345678901234567890.000001,1e30]'::numrange",
                "numrange(0.0001, 10000.0000)", "'(1.0,1.0]'::numrange", "'[1.0,1.00]'::numrange");
        assertColumns(TypeOids.TSRANGE, "'empty'::tsrange",
                "'[\"2024-01-01 00:00:00\",\"2024-02-01 00:00:00\")'::tsrange", "'[2024-01-01,)'::tsrange",
                "'(,infinity]'::tsrange", "'[-infinity,infinity)'::tsrange",
                "'(2024-01-01 12:00:00.123456,2024-01-01 12:00:00.123457]'::tsrange",
                "'[0044-03-15 12:00:00 BC,2024-01-01)'::tsrange", "'[2024-01-01,2024-01-01]'::tsrange",
                "tsrange('1999-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999', '[]')",
                "'(,)'::tsrange");
        List<String> zoned = List.of("'empty'::tstzrange",
                "'[\"2024-01-01 00:00:00+09\",\"2024-02-01 00:00:00+09\")'::tstzrange",
                "'(,2024-03-31 01:30:00+00]'::tstzrange", "'[1850-06-01 12:00:00,)'::tstzrange",
                "'[1900-01-01 00:00:00+00,2024-10-27 01:30:00+00]'::tstzrange", "'[-infinity,infinity)'::tstzrange",
                "'(0044-03-15 12:00:00+00 BC,1999-12-31 23:59:59.999999+05:30)'::tstzrange", "'(,)'::tstzrange",
                "tstzrange('2024-07-01 12:00:00.5', NULL, '[)')");
        for (String zone : ZONES) {
            postgres.execute("SET TimeZone = '" + zone + "'");
            assertColumns(TypeOids.TSTZRANGE, zoned.toArray(new String[0]));
        }
        Random random = new Random(19);
        List<String> literals = new ArrayList<>();
        List<String> timestamps = randomTimestamps(random, "timestamp");
        for (int i = 0; i + 1 < timestamps.size(); i += 2) {
            String first = timestamps.get(i);
            String second = timestamps.get(i + 1);
            literals.add("tsrange(least(" + first + ", " + second + "), greatest(" + first + ", " + second + "), '"
                    + (random.nextBoolean() ? "[" : "(") + (random.nextBoolean() ? "]" : ")") + "')");
        }
        assertRows(TypeOids.TSRANGE, literals);
    }

    @Test
    void rangeArrays() throws Exception {
        assertColumns(TypeOids.INT4RANGE_ARRAY, "'{}'::int4range[]",
                "ARRAY['[1,2)', 'empty', NULL, '(,)', '(,5]', '[7,)']::int4range[]",
                "ARRAY[ARRAY['[1,2)'::int4range], ARRAY[NULL::int4range]]");
        assertColumns(TypeOids.INT8RANGE_ARRAY, "ARRAY['[1,2)', 'empty', NULL]::int8range[]");
        assertColumns(TypeOids.NUMRANGE_ARRAY, "ARRAY['[1.5,2.50)', 'empty', NULL, '(,)']::numrange[]");
        assertColumns(TypeOids.DATERANGE_ARRAY,
                "ARRAY['[2024-01-01,2024-02-01)', '[0044-03-15 BC,)', 'empty', NULL]::daterange[]");
        assertColumns(TypeOids.TSRANGE_ARRAY,
                "ARRAY['[\"2024-01-01 00:00:00\",\"2024-02-01 00:00:00\")', '[-infinity,)', 'empty', NULL]::tsrange[]");
        for (String zone : ZONES) {
            postgres.execute("SET TimeZone = '" + zone + "'");
            assertColumns(TypeOids.TSTZRANGE_ARRAY, "ARRAY['[\"2024-01-01 00:00:00+09\",\"2024-02-01 00:00:00+09\")', "
                    + "'(,1850-06-01 12:00:00]', 'empty', NULL]::tstzrange[]");
        }
    }

    @Test
    void multiranges() throws Exception {
        assertColumns(TypeOids.INT4MULTIRANGE, "'{}'::int4multirange", "'{[1,3),[5,7)}'::int4multirange",
                "'{(,5),[10,)}'::int4multirange", "'{(,)}'::int4multirange", "'{[1,3),[2,7]}'::int4multirange",
                "'{empty}'::int4multirange", "'{[1,2), empty, [4,5]}'::int4multirange",
                "int4multirange(int4range(1, 2), int4range(-2147483648, 0))");
        assertColumns(TypeOids.INT8MULTIRANGE, "'{}'::int8multirange",
                "'{[-9223372036854775808,0),[1,9223372036854775807)}'::int8multirange");
        assertColumns(TypeOids.NUMMULTIRANGE, "'{}'::nummultirange", "'{[1.5,2.5],(3,4)}'::nummultirange",
                "'{(,0.001),(1e10,)}'::nummultirange");
        assertColumns(TypeOids.DATEMULTIRANGE, "'{}'::datemultirange",
                "'{[2024-01-01,2024-02-01),[2024-03-01,)}'::datemultirange",
                "'{[0044-03-15 BC,0001-01-01),[-infinity,infinity]}'::datemultirange");
        assertColumns(TypeOids.TSMULTIRANGE, "'{}'::tsmultirange",
                "'{[\"2024-01-01 00:00:00\",\"2024-01-02 00:00:00\"),(2024-02-01,infinity]}'::tsmultirange");
        for (String zone : ZONES) {
            postgres.execute("SET TimeZone = '" + zone + "'");
            assertColumns(TypeOids.TSTZMULTIRANGE, "'{}'::tstzmultirange",
                    "'{[\"2024-01-01 00:00:00+09\",\"2024-02-01 00:00:00+09\"),[1850-06-01 12:00:00,)}'"
                            + "::tstzmultirange");
            assertColumns(TypeOids.TSTZMULTIRANGE_ARRAY,
                    "ARRAY['{[\"2024-01-01 00:00:00+09\",\"2024-02-01 00:00:00+09\")}', '{}', NULL]::tstzmultirange[]");
        }
        assertColumns(TypeOids.INT4MULTIRANGE_ARRAY, "'{}'::int4multirange[]",
                "ARRAY['{[1,3),[5,7)}', '{}', NULL, '{(,)}']::int4multirange[]");
        assertColumns(TypeOids.INT8MULTIRANGE_ARRAY, "ARRAY['{[1,3),[5,7)}', NULL]::int8multirange[]");
        assertColumns(TypeOids.NUMMULTIRANGE_ARRAY, "ARRAY['{[1.5,2.5],(3,4)}', '{}']::nummultirange[]");
        assertColumns(TypeOids.DATEMULTIRANGE_ARRAY, "ARRAY['{[0044-03-15 BC,2024-01-01)}', NULL]::datemultirange[]");
        assertColumns(TypeOids.TSMULTIRANGE_ARRAY,
                "ARRAY['{[\"2024-01-01 00:00:00\",\"2024-01-02 00:00:00\")}', '{(,)}']::tsmultirange[]");
    }

    private static void assertColumns(int typeOid, String... expressions) throws SQLException, IOException {
        List<PostgresValues.Value> values = postgres.values(select(Arrays.asList(expressions)));
        assertTypes(typeOid, values);
        assertConverted(values);
    }

    private static void assertRows(int typeOid, List<String> expressions) throws SQLException, IOException {
        StringBuilder select = new StringBuilder("SELECT v FROM (VALUES ");
        for (int i = 0; i < expressions.size(); i++) {
            select.append(i == 0 ? "(" : ", (").append(expressions.get(i)).append(')');
        }
        List<PostgresValues.Value> values = postgres.values(select.append(") AS t(v)").toString());
        assertEquals(expressions.size(), values.size());
        assertTypes(typeOid, values);
        assertConverted(values);
    }

    private static String select(List<String> expressions) {
        StringBuilder result = new StringBuilder("SELECT ");
        for (int i = 0; i < expressions.size(); i++) {
            result.append(i == 0 ? "" : ", ").append(expressions.get(i)).append(" AS \"").append(i + 1).append('"');
        }
        return result.toString();
    }

    private static void assertTypes(int typeOid, List<PostgresValues.Value> values) {
        for (PostgresValues.Value value : values) {
            assertEquals(typeOid, value.typeOid(), "type of column " + value.label());
        }
    }

    /** Converts every non-null text value both ways (array and buffer) and compares with PostgreSQL's. */
    private static void assertConverted(List<PostgresValues.Value> values) {
        List<String> failures = new ArrayList<>();
        for (PostgresValues.Value value : values) {
            if (value.text() == null) {
                if (value.binary() != null) {
                    failures.add(value.label() + ": NULL in text but not in binary");
                }
                continue;
            }
            Optional<ValueEncoder> encoder = BinaryEncoders.find(value.typeOid());
            if (encoder.isEmpty()) {
                failures.add(value.label() + ": no encoder for type oid " + value.typeOid());
                continue;
            }
            String text = new String(value.text(), StandardCharsets.UTF_8);
            try {
                byte[] actual = encoder.get().toBinary(value.text());
                ByteBuf buffer = Unpooled.buffer();
                buffer.writeByte(0x7E);
                encoder.get().writeWithLength(value.text(), 0, value.text().length, buffer);
                byte[] framed = new byte[buffer.readableBytes()];
                buffer.readBytes(framed);
                byte[] expectedFramed = frame(value.binary());
                if (!Arrays.equals(value.binary(), actual) || !Arrays.equals(expectedFramed, framed)) {
                    failures.add(value.label() + " '" + abbreviate(text) + "': expected " + abbreviate(HEX.formatHex(
                            value.binary())) + " but was " + abbreviate(HEX.formatHex(actual)));
                }
            } catch (RuntimeException e) {
                failures.add(value.label() + " '" + abbreviate(text) + "': " + e);
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + values.size() + " values differ from PostgreSQL:\n"
                    + String.join("\n", failures));
        }
    }

    private static byte[] frame(byte[] binary) {
        ByteBuf buffer = Unpooled.buffer();
        buffer.writeByte(0x7E);
        buffer.writeInt(binary.length);
        buffer.writeBytes(binary);
        byte[] result = new byte[buffer.readableBytes()];
        buffer.readBytes(result);
        return result;
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }

    private static String allBytesLiteral() {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        return "'\\x" + HEX.formatHex(all) + "'::bytea";
    }

    private static void appendDigits(StringBuilder target, int count, Random random) {
        for (int i = 0; i < count; i++) {
            target.append(random.nextInt(3) == 0 ? (char) ('0' + random.nextInt(10)) : '0');
        }
        if (count > 0 && random.nextBoolean()) {
            target.setCharAt(target.length() - 1 - random.nextInt(count), (char) ('1' + random.nextInt(9)));
        }
    }

    private static String randomIpv4(Random random) {
        return random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
    }

    /** Eight groups, each zero half of the time so that runs of zeros of every length and place occur. */
    private static String randomIpv6(Random random) {
        StringBuilder result = new StringBuilder();
        for (int g = 0; g < 8; g++) {
            result.append(g == 0 ? "" : ":").append(Integer.toHexString(random.nextBoolean() ? 0
                    : random.nextInt(3) == 0 ? 0xFFFF : random.nextInt(0x10000)));
        }
        return result.toString();
    }

    private static String signed(Random random, int bound) {
        return Integer.toString(random.nextInt(2 * bound + 1) - bound);
    }

    private static List<String> randomTimestamps(Random random, String type) {
        List<String> result = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            int fractionDigits = random.nextInt(7);
            StringBuilder literal = new StringBuilder("'");
            literal.append(String.format("%04d-%02d-%02d %02d:%02d:%02d", 1 + random.nextInt(i % 2 == 0 ? 4000 : 9999),
                    1 + random.nextInt(12), 1 + random.nextInt(28), random.nextInt(24), random.nextInt(60),
                    random.nextInt(60)));
            if (fractionDigits > 0) {
                literal.append('.');
                for (int d = 0; d < fractionDigits; d++) {
                    literal.append((char) ('0' + random.nextInt(10)));
                }
            }
            if (i % 10 == 0) {
                literal.append(" BC");
            }
            result.add(literal.append("'::").append(type).toString());
        }
        return result;
    }
}
