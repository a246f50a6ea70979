package dev.pacer.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;

import org.junit.jupiter.api.Test;

class HostPortTest {
    @Test
    void anIpv6AddressIsBracketedAndTheResultIsAUrlsAuthority() {
        assertThat(HostPort.of("10.244.0.7", 8080)).isEqualTo("10.244.0.7:8080");
        assertThat(HostPort.of("fd00:10:244::7", 8080)).isEqualTo("[fd00:10:244::7]:8080");
        assertThat(HostPort.of("[fd00::7]", 80)).isEqualTo("[fd00::7]:80");
        URI uri = URI.create("http://" + HostPort.of("fd00:10:244::7", 8080) + "/");
        assertThat(uri.getHost()).isEqualTo("[fd00:10:244::7]");
        assertThat(uri.getPort()).isEqualTo(8080);
    }
}
