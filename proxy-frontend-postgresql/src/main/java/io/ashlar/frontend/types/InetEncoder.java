package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code inet} and {@code cidr}: {@code network_send} writes one byte each of address family
 * ({@code PGSQL_AF_INET} 2, {@code PGSQL_AF_INET6} 3), netmask bits, an is-cidr flag (1 for every
 * {@code cidr} value, 0 for every {@code inet} one) and address length (4 or 16), then the address
 * in network byte order. {@code network_out} prints IPv4 as four dotted octets and IPv6 in
 * {@code inet_net_ntop}'s form: hex groups, the longest run of two or more zero groups as
 * {@code ::}, and the last 32 bits as dotted octets after a run of five zero groups and
 * {@code ffff} ({@code ::ffff:1.2.3.4}) or of six ({@code ::1.2.3.4}). The netmask follows as
 * {@code /bits}, which {@code inet} leaves out when it is the whole address (32 or 128) and
 * {@code cidr} always prints. Every standard IPv6 text form is read, not only the one PostgreSQL
 * prints. See <a href="https://www.postgresql.org/docs/current/datatype-net-types.html">Network
 * Address Types</a> and {@code src/backend/utils/adt/network.c}.
 */
final class InetEncoder implements ValueEncoder {

    static final InetEncoder INET = new InetEncoder(TypeOids.INET, false, "inet");
    static final InetEncoder CIDR = new InetEncoder(TypeOids.CIDR, true, "cidr");

    private static final int PGSQL_AF_INET = 2;
    private static final int PGSQL_AF_INET6 = 3;
    private static final int IPV4_BYTES = 4;
    private static final int IPV6_BYTES = 16;
    private static final int IPV4_BITS = 32;
    private static final int IPV6_BITS = 128;
    private static final int IPV6_GROUPS = 8;
    private static final int GROUP_BITS = 16;
    private static final int GROUPS_PER_LONG = 4;
    private static final int MAX_GROUP_DIGITS = 4;
    private static final int MAX_OCTET = 255;

    private final int typeOid;
    private final boolean cidr;
    private final String typeName;

    private InetEncoder(int typeOid, boolean cidr, String typeName) {
        this.typeOid = typeOid;
        this.cidr = cidr;
        this.typeName = typeName;
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        int slash = AsciiText.indexOf(text, (byte) '/', offset, end);
        boolean ipv6 = AsciiText.indexOf(text, (byte) ':', offset, slash) < slash;
        int maxBits = ipv6 ? IPV6_BITS : IPV4_BITS;
        int bits = maxBits;
        if (slash < end) {
            if (end - slash - 1 > 3) {
                throw AsciiText.malformed(typeName, text, offset, end);
            }
            bits = (int) AsciiText.parseUnsigned(text, slash + 1, end, typeName);
            if (bits > maxBits) {
                throw AsciiText.malformed(typeName, text, offset, end);
            }
        }
        out.writeByte(ipv6 ? PGSQL_AF_INET6 : PGSQL_AF_INET);
        out.writeByte(bits);
        out.writeByte(cidr ? 1 : 0);
        if (ipv6) {
            out.writeByte(IPV6_BYTES);
            writeIpv6(text, offset, slash, end, out);
        } else {
            out.writeByte(IPV4_BYTES);
            out.writeInt((int) ipv4(text, offset, slash, offset, end));
        }
    }

    /**
     * Writes the 16 bytes of the IPv6 address {@code text[from, to)}. Groups before {@code ::} are
     * placed at their index from the left; groups after it are shifted in from the right, so the
     * zeros that {@code ::} stands for fall in between without being counted first.
     */
    private void writeIpv6(byte[] text, int from, int to, int end, ByteBuf out) {
        long headHigh = 0;
        long headLow = 0;
        long tailHigh = 0;
        long tailLow = 0;
        int groups = 0;
        boolean compressed = false;
        int p = from;
        if (p + 1 < to && text[p] == ':' && text[p + 1] == ':') {
            compressed = true;
            p += 2;
        }
        while (p < to) {
            int fieldEnd = AsciiText.indexOf(text, (byte) ':', p, to);
            boolean dotted = AsciiText.indexOf(text, (byte) '.', p, fieldEnd) < fieldEnd;
            if (dotted && fieldEnd != to || groups + (dotted ? 2 : 1) > IPV6_GROUPS) {
                throw AsciiText.malformed(typeName, text, from, end);
            }
            long value = dotted ? ipv4(text, p, fieldEnd, from, end) : group(text, p, fieldEnd, from, end);
            int fieldGroups = dotted ? 2 : 1;
            for (int g = fieldGroups - 1; g >= 0; g--) {
                long word = value >>> g * GROUP_BITS & 0xFFFF;
                if (compressed) {
                    tailHigh = tailHigh << GROUP_BITS | tailLow >>> (Long.SIZE - GROUP_BITS);
                    tailLow = tailLow << GROUP_BITS | word;
                } else if (groups < GROUPS_PER_LONG) {
                    headHigh |= word << (GROUPS_PER_LONG - 1 - groups) * GROUP_BITS;
                } else {
                    headLow |= word << (IPV6_GROUPS - 1 - groups) * GROUP_BITS;
                }
                groups++;
            }
            p = fieldEnd;
            if (p == to) {
                break;
            }
            p++;
            if (p < to && text[p] == ':') {
                if (compressed) {
                    throw AsciiText.malformed(typeName, text, from, end);
                }
                compressed = true;
                p++;
            } else if (p == to) {
                throw AsciiText.malformed(typeName, text, from, end);
            }
        }
        if (compressed ? groups == IPV6_GROUPS : groups != IPV6_GROUPS) {
            throw AsciiText.malformed(typeName, text, from, end);
        }
        out.writeLong(headHigh | tailHigh);
        out.writeLong(headLow | tailLow);
    }

    /** One hex group of one to four digits filling {@code text[from, to)}. */
    private long group(byte[] text, int from, int to, int valueFrom, int valueEnd) {
        if (to == from || to - from > MAX_GROUP_DIGITS) {
            throw AsciiText.malformed(typeName, text, valueFrom, valueEnd);
        }
        long result = 0;
        for (int p = from; p < to; p++) {
            int d = AsciiText.hexDigit(text[p]);
            if (d < 0) {
                throw AsciiText.malformed(typeName, text, valueFrom, valueEnd);
            }
            result = result << 4 | d;
        }
        return result;
    }

    /** The 32 bits of four dotted decimal octets filling {@code text[from, to)}. */
    private long ipv4(byte[] text, int from, int to, int valueFrom, int valueEnd) {
        long result = 0;
        int p = from;
        for (int octet = 0; octet < IPV4_BYTES; octet++) {
            int start = p;
            int value = 0;
            while (p < to && p - start < 3 && AsciiText.digit(text[p]) >= 0) {
                value = value * 10 + AsciiText.digit(text[p]);
                p++;
            }
            boolean last = octet == IPV4_BYTES - 1;
            if (p == start || value > MAX_OCTET || (last ? p != to : p == to || text[p] != '.')) {
                throw AsciiText.malformed(typeName, text, valueFrom, valueEnd);
            }
            p++;
            result = result << Byte.SIZE | value;
        }
        return result;
    }
}
