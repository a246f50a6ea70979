package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The framing reads a common response itself and ends every response exactly where Jetty's parser ends it: each input
 * below goes through a reader with the framing and through one with Jetty's parser alone, cut between two reads at every
 * byte and then read a byte at a time, and both must tell the same story: each response's status, whether it closes
 * the connection, where it ended, or the same refusal.
 */
class ResponseFramingTest {
    private static final String NGINX = "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Fri, 27 Nov 2026 01:00:00 GMT\r\n"
            + "Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok";

    static Stream<Arguments> responses() {
        return Stream.of(
                Arguments.of("nginx", NGINX, false),
                Arguments.of("two in a row", NGINX + NGINX.replace("200 OK", "503 Service Unavailable"), false),
                Arguments.of("no reason phrase", "HTTP/1.1 200\r\nContent-Length: 3\r\n\r\nabc", false),
                Arguments.of("close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("close in a list, any case", "HTTP/1.1 200 OK\r\nconnection: Keep-Alive, CLOSE\r\ncontent-length: 2\r\n\r\nok", false),
                Arguments.of("not the close token", "HTTP/1.1 200 OK\r\nConnection: closed\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("spaces and tabs around values", "HTTP/1.1 200 OK\r\nContent-Length:\t 2 \r\nX-A:b\r\n\r\nok", false),
                Arguments.of("leading zeros", "HTTP/1.1 200 OK\r\nContent-Length: 0002\r\n\r\nok", false),
                Arguments.of("empty body", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" + NGINX, false),
                Arguments.of("a reason phrase not ASCII", "HTTP/1.1 200 \u00e6\u0088\u0090\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("a reason phrase after a tab", "HTTP/1.1 200 \tOK\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("an empty reason phrase", "HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("statuses 600 and 999", "HTTP/1.1 600 X\r\nContent-Length: 0\r\n\r\nHTTP/1.1 999 Y\r\nContent-Length: 0\r\n\r\n", false),
                Arguments.of("close with a parameter", "HTTP/1.1 200 OK\r\nConnection: close;x=1\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("close quoted", "HTTP/1.1 200 OK\r\nConnection: \"close\"\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("obs-text and empty values", "HTTP/1.1 200 OK\r\nX-A: caf\u00e9\r\nX-B:\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("lengths Jetty reads", "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok", false),
                Arguments.of("a length with a space inside", "HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\nok", false),
                Arguments.of("a length of 19 digits", "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000000\r\n\r\nok", false),
                Arguments.of("a name not a token", "HTTP/1.1 200 OK\r\nX@A: b\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("HEAD without a length", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\n" + NGINX, true),
                Arguments.of("chunked in lower case", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false),
                Arguments.of("103 Early Hints first", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n" + NGINX, false),
                Arguments.of("a long head", "HTTP/1.1 200 OK\r\nX-Long: " + "v".repeat(9_000) + "\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("a body over several reads", "HTTP/1.1 200 OK\r\nContent-Length: 300\r\n\r\n" + "x".repeat(300) + NGINX, false),
                Arguments.of("204", "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n" + NGINX, false),
                Arguments.of("304 with a length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n" + NGINX, false),
                Arguments.of("HEAD with a length", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\n", true),
                Arguments.of("chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3\r\nabc\r\n0\r\n\r\n" + NGINX, false),
                Arguments.of("delimited by the close", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nuntil the end", false),
                Arguments.of("HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("HTTP/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("100 Continue first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("a length twice, agreeing", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("a length twice, differing", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nokk", false),
                Arguments.of("a length and chunked", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false),
                Arguments.of("a length not a number", "HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok", false),
                Arguments.of("a negative length", "HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\nok", false),
                Arguments.of("a status not a number", "HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("a space before the colon", "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok", false),
                Arguments.of("a folded line", "HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("bare line feeds", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", false),
                Arguments.of("a control character in a value", "HTTP/1.1 200 OK\r\nX-A: b\u0001c\r\nContent-Length: 2\r\n\r\nok", false),
                Arguments.of("not HTTP", "SSH-2.0-OpenSSH_9.2\r\n", false),
                // (cut within the head at the close: Jetty's parser reads that itself, and trips its own assertion under -ea)
                Arguments.of("cut within the body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("responses")
    void endsEveryResponseWhereJettysParserEndsIt(String name, String input, boolean headRequest) {
        byte[] bytes = input.getBytes(StandardCharsets.ISO_8859_1);
        List<String> reference = story(new Http1ResponseReader(headRequest, false), List.of(bytes));
        for (int cut = 0; cut <= bytes.length; cut++) {
            List<byte[]> reads = List.of(slice(bytes, 0, cut), slice(bytes, cut, bytes.length));
            assertThat(story(new Http1ResponseReader(headRequest, true), reads)).as("cut at %d", cut).isEqualTo(reference);
            assertThat(story(new Http1ResponseReader(headRequest, false), reads)).as("Jetty's, cut at %d", cut).isEqualTo(reference);
        }
        List<byte[]> byteByByte = new ArrayList<>();
        for (int i = 0; i < bytes.length; i++) {
            byteByByte.add(slice(bytes, i, i + 1));
        }
        assertThat(story(new Http1ResponseReader(headRequest, true), byteByByte)).as("a byte at a time").isEqualTo(reference);
    }

    @Test
    void aCommonResponseIsFramedWithoutJettysParser() {
        ByteBuffer two = ByteBuffer.wrap((NGINX + NGINX).getBytes(StandardCharsets.ISO_8859_1));
        ResponseFraming framing = new ResponseFraming();
        assertThat(framing.read(two, false)).isEqualTo(ResponseFraming.Step.COMPLETE);
        assertThat(framing.status()).isEqualTo(200);
        assertThat(framing.closeAfter()).isFalse();
        assertThat(two.position()).isEqualTo(NGINX.length());
        assertThat(framing.read(two, false)).isEqualTo(ResponseFraming.Step.COMPLETE);
        assertThat(two.hasRemaining()).isFalse();

        String big = "HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Length: 5\r\n\r\n";
        ByteBuffer head = ByteBuffer.wrap((big + "ab").getBytes(StandardCharsets.ISO_8859_1));
        assertThat(framing.read(head, false)).as("the body goes on").isEqualTo(ResponseFraming.Step.NEED_MORE);
        assertThat(framing.betweenResponses()).isFalse();
        assertThat(framing.read(ByteBuffer.wrap("cde".getBytes(StandardCharsets.ISO_8859_1)), false)).isEqualTo(ResponseFraming.Step.COMPLETE);
        assertThat(framing.status()).isEqualTo(201);
        assertThat(framing.closeAfter()).isTrue();
    }

    @Test
    void anInterimResponseIsPassedOverForTheFinalOne() {
        String input = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
        assertThat(story(new Http1ResponseReader(false), List.of(input.getBytes(StandardCharsets.ISO_8859_1))))
                .containsExactly("201 ending at " + input.length());
    }

    @Test
    void aCloseWithinAFramedBodyIsACutResponse() {
        Http1ResponseReader reader = new Http1ResponseReader(false);
        reader.read(ByteBuffer.wrap("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(reader.complete()).isFalse();
        reader.readAtEndOfInput(ByteBuffer.allocate(0));
        assertThat(reader.badResponse()).isInstanceOf(java.io.EOFException.class);
        assertThat(reader.complete()).isFalse();
    }

    @Test
    void whatItDoesNotReadItLeavesUntouched() {
        for (String other : List.of("HTTP/1.1 200 OK\r\nContent-Len", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 200 OK\r\n\r\nuntil the end")) {
            ByteBuffer buffer = ByteBuffer.wrap(other.getBytes(StandardCharsets.ISO_8859_1));
            ResponseFraming framing = new ResponseFraming();
            assertThat(framing.read(buffer, false)).as(other).isEqualTo(ResponseFraming.Step.DELEGATE);
            assertThat(buffer.position()).as(other).isZero();
            assertThat(framing.betweenResponses()).isTrue();
        }
        ByteBuffer direct = ByteBuffer.allocateDirect(NGINX.length()).put(NGINX.getBytes(StandardCharsets.ISO_8859_1)).flip();
        assertThat(new ResponseFraming().read(direct, false)).as("no array to scan").isEqualTo(ResponseFraming.Step.DELEGATE);
        assertThat(direct.position()).isZero();
    }

    /** What a reader made of the reads, as the connection reads them, then the server's close. */
    private static List<String> story(Http1ResponseReader reader, List<byte[]> reads) {
        List<String> story = new ArrayList<>();
        long offset = 0;
        for (byte[] read : reads) {
            // within a larger array, as a pooled buffer may be
            byte[] padded = new byte[read.length + 14];
            System.arraycopy(read, 0, padded, 7, read.length);
            ByteBuffer buffer = ByteBuffer.wrap(padded, 7, read.length).slice();
            while (buffer.hasRemaining()) {
                int before = buffer.position();
                reader.read(buffer);
                if (reader.badResponse() != null) {
                    story.add("refused");
                    return story;
                }
                if (reader.complete()) {
                    story.add(reader.status() + (reader.closeAfter() ? " close" : "") + " ending at " + (offset + buffer.position()));
                    reader.next();
                } else {
                    assertThat(buffer.position()).as("a read that neither completes nor consumes would loop").isGreaterThan(before);
                }
            }
            offset += read.length;
        }
        ByteBuffer empty = ByteBuffer.allocate(0);
        reader.readAtEndOfInput(empty);
        if (reader.complete()) {
            story.add(reader.status() + (reader.closeAfter() ? " close" : "") + " at the close");
        }
        return story;
    }

    private static byte[] slice(byte[] bytes, int from, int to) {
        byte[] part = new byte[to - from];
        System.arraycopy(bytes, from, part, 0, part.length);
        return part;
    }
}
