package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.junit.jupiter.api.Test;
import org.mortbay.jetty.load.generator.Resource;

/** The request's header blocks as Jetty's real HPACK decoder (a server's) reads them, on one connection in order. */
class Http2FramesTest {
    private static List<String[]> fields(byte[] body) {
        Resource resource = new Resource("/items?x=1");
        resource.method("POST");
        resource.requestHeaders(HttpFields.build().add("Accept", "*/*").add("X-Trace", "on").add("Connection", "keep-alive")
                .add("Content-Length", "99").add("TE", "gzip"));
        return Http2Frames.requestFields(resource, "https", "example.test:8443", "/items?x=1", body);
    }

    private static MetaData.Request read(HpackDecoder server, byte[] block) throws Exception {
        return (MetaData.Request) server.decode(ByteBuffer.wrap(block));
    }

    @Test
    void theFirstBlockAddsTheFieldsAndEveryLaterOneIndexesThemToTheSameRequest() throws Exception {
        List<String[]> fields = fields("hello".getBytes(StandardCharsets.UTF_8));
        byte[] first = Http2Frames.firstBlock(fields, true, -1);
        byte[] later = Http2Frames.laterBlock(fields);
        HpackDecoder server = new HpackDecoder(8_192, System::nanoTime);
        for (byte[] block : List.of(first, later, later, later)) {
            MetaData.Request request = read(server, block);
            assertThat(request.getMethod()).isEqualTo("POST");
            assertThat(request.getHttpURI().getScheme()).isEqualTo("https");
            assertThat(request.getHttpURI().getAuthority()).isEqualTo("example.test:8443");
            assertThat(request.getHttpURI().getPathQuery()).isEqualTo("/items?x=1");
            assertThat(request.getHttpFields().get("accept")).isEqualTo("*/*");
            assertThat(request.getHttpFields().get("x-trace")).isEqualTo("on");
            assertThat(request.getHttpFields().get("content-type")).isEqualTo("text/plain;charset=UTF-8");
            assertThat(request.getHttpFields().get("content-length")).isEqualTo("5");
            assertThat(request.getHttpFields().stream().map(HttpField::getName)).as("HTTP/2 forbids them").doesNotContain("connection", "te");
            assertThat(request.getHttpFields().getValuesList("content-length")).as("the body's own, once").containsExactly("5");
        }
        assertThat(later.length).as("each field one index").isEqualTo(fields.size());
        assertThat(Http2Frames.tableBytes(fields)).isEqualTo(server.getHpackContext().getDynamicTableSize());
    }

    @Test
    void withoutRoomInTheServersTableEveryBlockIsTheFirstNotAddingAnything() throws Exception {
        List<String[]> fields = fields(null);
        byte[] plain = Http2Frames.firstBlock(fields, false, 0);   // the server announced a table of 0 bytes
        HpackDecoder server = new HpackDecoder(8_192, System::nanoTime);
        server.setMaxTableCapacity(0);
        for (int i = 0; i < 3; i++) {
            assertThat(read(server, plain).getHttpURI().getPathQuery()).isEqualTo("/items?x=1");
        }
        assertThat(server.getHpackContext().size()).isZero();
    }

    @Test
    void theOpeningIsThePrefaceTheClientsSettingsAndItsConnectionWindow() {
        ByteBuffer opening = Http2Frames.opening(Http2Shard.WINDOW_BYTES);
        byte[] preface = new byte[Http2Frames.PREFACE.length];
        opening.get(preface);
        assertThat(new String(preface, StandardCharsets.US_ASCII)).isEqualTo("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        assertThat(opening.get(opening.position() + 3)).isEqualTo((byte) Http2Frames.SETTINGS);
        opening.position(opening.position() + Http2Frames.FRAME_HEADER_BYTES);
        assertThat(opening.getShort()).isEqualTo((short) Http2Frames.SETTINGS_ENABLE_PUSH);
        assertThat(opening.getInt()).isZero();
        assertThat(opening.getShort()).isEqualTo((short) Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE);
        assertThat(opening.getInt()).isEqualTo(Http2Shard.WINDOW_BYTES);
        assertThat(opening.get(opening.position() + 3)).isEqualTo((byte) Http2Frames.WINDOW_UPDATE);
        opening.position(opening.position() + Http2Frames.FRAME_HEADER_BYTES);
        assertThat(opening.getInt() + Http2Frames.DEFAULT_WINDOW_BYTES).isEqualTo(Http2Shard.WINDOW_BYTES);
        assertThat(opening.hasRemaining()).isFalse();
    }
}
