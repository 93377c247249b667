package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The first packet of a session: protocol version and run-time parameters ({@code user},
 * {@code database}, {@code options}, {@code application_name}, {@code client_encoding}, any
 * GUC), in the order the client sent them. Options named {@code _pq_.*} are protocol
 * extensions, not GUCs: they are kept apart in {@link #protocolOptions()} so the session can
 * list them as unrecognized in a {@link NegotiateProtocolVersion}, as PostgreSQL does.
 *
 * @param protocolVersion the version as sent (196608 = 3.0, 196610 = 3.2, 196659 = openGauss 3.51)
 * @param parameters name to value, in wire order
 * @param protocolOptions the {@code _pq_.} option names, in wire order
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-STARTUPMESSAGE">StartupMessage</a>
 */
public record StartupMessage(int protocolVersion, Map<String, String> parameters, List<String> protocolOptions)
        implements FrontendMessage {

    private static final String PROTOCOL_OPTION_PREFIX = "_pq_.";

    public StartupMessage {
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
        protocolOptions = List.copyOf(protocolOptions);
    }

    /** A 3.0 startup packet with these parameters, for tests and tools. */
    public static StartupMessage of(Map<String, String> parameters) {
        return new StartupMessage(ClientDialect.PROTOCOL_3_0, parameters, List.of());
    }

    public int majorVersion() {
        return protocolVersion >>> 16;
    }

    public int minorVersion() {
        return protocolVersion & 0xffff;
    }

    public ClientDialect dialect() {
        return ClientDialect.of(protocolVersion);
    }

    /** The {@code user} parameter, or empty when the client sent none (PostgreSQL refuses that, 28000). */
    public String user() {
        return parameters.getOrDefault("user", "");
    }

    /** The {@code database} parameter; like PostgreSQL, the user name when absent or empty. */
    public String database() {
        String result = parameters.getOrDefault("database", "");
        return result.isEmpty() ? user() : result;
    }

    public Optional<String> parameter(String name) {
        return Optional.ofNullable(parameters.get(name));
    }

    public Optional<String> applicationName() {
        return parameter("application_name");
    }

    public Optional<String> clientEncoding() {
        return parameter("client_encoding");
    }

    public Optional<String> options() {
        return parameter("options");
    }

    /**
     * True when the server must answer with NegotiateProtocolVersion before authentication: a
     * PostgreSQL client asked for a minor version above 3.0 or for {@code _pq_.} options.
     * openGauss's 3.50/3.51 are accepted as they are.
     */
    public boolean needsProtocolNegotiation() {
        return dialect() == ClientDialect.POSTGRESQL && (minorVersion() > 0 || !protocolOptions.isEmpty());
    }

    /** The NegotiateProtocolVersion to send when {@link #needsProtocolNegotiation()}: 3.0, all options unknown. */
    public NegotiateProtocolVersion negotiation() {
        return new NegotiateProtocolVersion(0, protocolOptions);
    }

    @Override
    public void encode(ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        out.writeInt(protocolVersion);
        for (Map.Entry<String, String> each : parameters.entrySet()) {
            Wire.writeCString(out, each.getKey());
            Wire.writeCString(out, each.getValue());
        }
        for (String each : protocolOptions) {
            Wire.writeCString(out, each);
            Wire.writeCString(out, "");
        }
        out.writeByte(0);
        out.setInt(start, out.writerIndex() - start);
    }

    /**
     * Reads the name/value pairs after the version. Like PostgreSQL's
     * {@code ProcessStartupPacket}, the list ends with an empty name that must be the last byte.
     */
    static FrontendMessage decodeBody(FrameReader body, int protocolVersion) {
        Map<String, String> parameters = new LinkedHashMap<>();
        List<String> protocolOptions = new ArrayList<>(0);
        boolean terminated = false;
        while (!body.failed() && body.remaining() > 0) {
            String name = body.readCString();
            if (name.isEmpty()) {
                terminated = true;
                break;
            }
            String value = body.readCString();
            if (name.startsWith(PROTOCOL_OPTION_PREFIX)) {
                protocolOptions.add(name);
            } else {
                parameters.put(name, value);
            }
        }
        if (!terminated || body.failed() || body.remaining() != 0) {
            return new Malformed("invalid startup packet layout: expected terminator as last byte");
        }
        return new StartupMessage(protocolVersion, parameters, protocolOptions);
    }
}
