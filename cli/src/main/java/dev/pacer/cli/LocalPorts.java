package dev.pacer.cli;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/** Loopback ports of a local run: a free one for a server the CLI must know the port of, and whether a server answers. */
final class LocalPorts {
    private static final int CONNECT_TIMEOUT_MS = 500;

    /** For the readiness check over https only: it asks whether the server answers, not whom it is. */
    private static final SSLContext ANY_CERTIFICATE = anyCertificate();

    private LocalPorts() {
    }

    private static SSLContext anyCertificate() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no TLS: " + e.getMessage(), e);
        }
    }

    /** A port free now on loopback (the server binds it a moment later; a clash fails the server's start, loudly). */
    static int free() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The server accepts a TCP connection on the port; with a path, that path answers 2xx. */
    static boolean answers(int port, String path) {
        return answers(port, path, false);
    }

    /**
     * The same over https: the path is asked over TLS. Readiness asks only whether the server answers; the clients check
     * its certificate when they connect, and a run whose certificate fails fails there, with the reason named.
     */
    static boolean answers(int port, String path, boolean https) {
        if (path == null) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), CONNECT_TIMEOUT_MS);
                return true;
            } catch (IOException e) {
                return false;
            }
        }
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create((https ? "https" : "http") + "://127.0.0.1:" + port + path)
                    .toURL().openConnection();
            if (connection instanceof HttpsURLConnection tls) {
                tls.setSSLSocketFactory(ANY_CERTIFICATE.getSocketFactory());
                tls.setHostnameVerifier((host, session) -> true);
            }
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
