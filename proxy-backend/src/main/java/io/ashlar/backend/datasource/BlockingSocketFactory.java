package io.ashlar.backend.datasource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import javax.net.SocketFactory;

/**
 * Backend sockets that stay in blocking mode, given to pgjdbc as its {@code socketFactory}.
 *
 * <p>The JDK's plain {@link Socket} switches its file descriptor to non-blocking mode for good
 * the first time a read runs with a timeout, and HikariCP sets a network timeout on every new
 * connection while it validates it. From then on every read the proxy makes on that connection
 * is a read that fails with EAGAIN, a poll, and a second read: three system calls where one
 * would do, on every statement. A socket made from a {@link SocketChannel} goes back to
 * blocking mode after a timed read, so an untimed read is one blocking system call.
 */
public final class BlockingSocketFactory extends SocketFactory {

    public BlockingSocketFactory() {
    }

    @Override
    public Socket createSocket() throws IOException {
        return SocketChannel.open().socket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        Socket socket = createSocket();
        socket.bind(new InetSocketAddress(localHost, localPort));
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        Socket socket = createSocket();
        socket.bind(new InetSocketAddress(localAddress, localPort));
        socket.connect(new InetSocketAddress(address, port));
        return socket;
    }
}
