package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackEncoder;
import org.junit.jupiter.api.Test;

/**
 * The client's status-only HPACK decoder against Jetty's real encoder: blocks that index, add, evict and Huffman-code,
 * decoded in order on one connection, each status as the encoder was given it.
 */
class HpackStatusDecoderTest {
    private static final int[] STATUSES = {200, 201, 204, 206, 302, 304, 400, 404, 418, 429, 500, 503};

    /** Jetty's encoder with HPACK's default 4,096-byte table, as a server writes a connection's responses. */
    private static HpackEncoder serverEncoder() {
        HpackEncoder encoder = new HpackEncoder();
        encoder.setMaxTableCapacity(4_096);
        encoder.setTableCapacity(4_096);
        encoder.setMaxHeaderListSize(64 * 1024);
        return encoder;
    }

    private static ByteBuffer block(HpackEncoder encoder, int status, HttpFields fields) throws Exception {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        encoder.encode(buffer, new MetaData.Response(status, null, HttpVersion.HTTP_2, fields));
        return buffer.flip();
    }

    @Test
    void everyStatusOfAConnectionsResponsesIsTheOneEncodedWhileTheTableFillsAndEvicts() throws Exception {
        HpackEncoder encoder = serverEncoder();
        HpackStatusDecoder decoder = new HpackStatusDecoder(4_096);
        Random random = new Random(7);
        List<Integer> sent = new ArrayList<>();
        List<Integer> read = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            int status = STATUSES[random.nextInt(STATUSES.length)];
            // values that change (a date each "second", an id per response) make the server add entries and evict old ones
            HttpFields fields = HttpFields.build()
                    .add("server", "pacer-test")
                    .add("date", "Mon, 30 Nov 2026 04:" + (i / 60 % 60) + ":" + (i % 60) + " GMT")
                    .add("content-type", "text/plain;charset=utf-8")
                    .add("x-request-id", "req-" + random.nextInt(500))
                    .add("x-" + random.nextInt(40), "v" + random.nextInt(1_000))
                    .add("content-length", Integer.toString(random.nextInt(100_000)));
            sent.add(status);
            read.add(decoder.status(block(encoder, status, fields)));
            assertThat(decoder.tableBytes()).as("the table's size after block %d", i).isEqualTo(encoder.getHpackContext().getDynamicTableSize());
        }
        assertThat(read).isEqualTo(sent);
        assertThat(encoder.getHpackContext().size()).as("the test made the encoder's table fill").isGreaterThan(10);
    }

    @Test
    void aLargeValueEmptiesTheTableAndTheNextIndexesStillResolve() throws Exception {
        HpackEncoder encoder = serverEncoder();
        HpackStatusDecoder decoder = new HpackStatusDecoder(4_096);
        assertThat(decoder.status(block(encoder, 418, HttpFields.build().add("x-a", "1")))).isEqualTo(418);
        assertThat(decoder.status(block(encoder, 201, HttpFields.build().add("x-big", "b".repeat(5_000))))).isEqualTo(201);
        assertThat(decoder.status(block(encoder, 418, HttpFields.build().add("x-a", "1")))).isEqualTo(418);
    }

    @Test
    void aTableSizeUpdateShrinksTheTableAsTheEncoderDoes() throws Exception {
        HpackEncoder encoder = serverEncoder();
        HpackStatusDecoder decoder = new HpackStatusDecoder(4_096);
        for (int i = 0; i < 50; i++) {
            decoder.status(block(encoder, 299 - i % 3, HttpFields.build().add("x-n", "" + i)));
        }
        encoder.setTableCapacity(100);   // its next block starts with the size update
        for (int i = 0; i < 50; i++) {
            assertThat(decoder.status(block(encoder, 202 + i % 5, HttpFields.build().add("x-m", "value-" + i)))).isEqualTo(202 + i % 5);
            assertThat(decoder.tableBytes()).isEqualTo(encoder.getHpackContext().getDynamicTableSize()).isLessThanOrEqualTo(100);
        }
    }

    @Test
    void trailersHaveNoStatus() throws Exception {
        HpackEncoder encoder = serverEncoder();
        ByteBuffer trailers = ByteBuffer.allocate(1024);
        encoder.encode(trailers, new MetaData(HttpVersion.HTTP_2, HttpFields.build().add("grpc-status", "0")));
        assertThat(new HpackStatusDecoder(4_096).status(trailers.flip())).isZero();
    }

    @Test
    void anIndexBeyondTheTableOrASizeAboveTheOneAnnouncedBreaksTheConnection() {
        HpackStatusDecoder decoder = new HpackStatusDecoder(4_096);
        assertThatThrownBy(() -> decoder.status(ByteBuffer.wrap(new byte[] {(byte) (0x80 | 62)})))
                .isInstanceOf(HpackStatusDecoder.HpackException.class).hasMessageContaining("index 62 beyond");
        assertThatThrownBy(() -> new HpackStatusDecoder(100).status(ByteBuffer.wrap(new byte[] {0x3F, (byte) 0xE1, 0x1F})))
                .isInstanceOf(HpackStatusDecoder.HpackException.class).hasMessageContaining("above the 100 announced");
        assertThatThrownBy(() -> decoder.status(ByteBuffer.wrap(new byte[] {0x48, 0x03, '2', '0'})))
                .isInstanceOf(HpackStatusDecoder.HpackException.class).hasMessageContaining("cut short");
    }
}
