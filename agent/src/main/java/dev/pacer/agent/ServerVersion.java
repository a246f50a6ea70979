package dev.pacer.agent;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * A server image's library and version as its build wrote them ({@code pacer-server.properties}, filtered by Maven from
 * the pom's version property), for the agent's info: what a figure was measured on, from the build, never typed.
 */
public final class ServerVersion {
    public static final String RESOURCE = "/pacer-server.properties";

    private ServerVersion() {
    }

    /** The {@code library} entry of the server's resource, e.g. "netty 4.2.6.Final", with the JDK's version. */
    public static String of(Class<?> server) {
        Properties properties = new Properties();
        try (InputStream in = server.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // the version is then unknown, and says so
        }
        return properties.getProperty("library", "unknown (no " + RESOURCE + ")") + ", JDK " + Runtime.version();
    }
}
