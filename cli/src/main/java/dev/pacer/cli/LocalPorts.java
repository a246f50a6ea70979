package dev.pacer.cli;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;

/** Loopback ports of a local run: a free one for a server the CLI must know the port of, and whether a server answers. */
final class LocalPorts {
    private static final int CONNECT_TIMEOUT_MS = 500;

    private LocalPorts() {
    }

    /** A port free now on loopback (the server binds it a moment later; a clash fails the server's start, loudly). */
    static int free() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The server accepts a TCP connection on the port; with a path, that path answers 2xx. */
    static boolean answers(int port, String path) {
        if (path == null) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), CONNECT_TIMEOUT_MS);
                return true;
            } catch (IOException e) {
                return false;
            }
        }
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
            connection.setConnectTimeout(CONNECT_TIMEOUT_MS);
            connection.setReadTimeout(2 * CONNECT_TIMEOUT_MS);
            int status = connection.getResponseCode();
            connection.disconnect();
            return status >= 200 && status < 300;
        } catch (IOException e) {
            return false;
        }
    }
}
