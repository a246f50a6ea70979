package dev.pacer.contract;

/** An address and port as URLs and {@code --listen} write them: an IPv6 address in brackets ({@code [fd00::5]:8080}). */
public final class HostPort {
    private HostPort() {
    }

    /** The address as a URL's host: an IPv6 address (it holds a colon) in brackets, any other as it is. */
    public static String host(String address) {
        return address.contains(":") && !address.startsWith("[") ? "[" + address + "]" : address;
    }

    public static String of(String address, int port) {
        return host(address) + ":" + port;
    }
}
