package dev.pacer.loadgen;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http2.hpack.HpackContext;
import org.mortbay.jetty.load.generator.Resource;

/**
 * HTTP/2's frames as the client writes them (RFC 9113), and the request's HPACK header block (RFC 7541) made once: the
 * block that adds its fields to the server's table, for a connection's first request, and the block of their indexes,
 * for every other. Pure: bytes in, bytes out.
 */
final class Http2Frames {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    static final int FRAME_HEADER_BYTES = 9;
    /** The largest frame a side may send unless the other allowed more; the client allows no more. */
    static final int DEFAULT_MAX_FRAME_BYTES = 16_384;
    static final int LARGEST_MAX_FRAME_BYTES = (1 << 24) - 1;
    static final int DEFAULT_WINDOW_BYTES = 65_535;
    static final int DEFAULT_HEADER_TABLE_BYTES = 4_096;

    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int PRIORITY = 0x2;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PUSH_PROMISE = 0x5;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int WINDOW_UPDATE = 0x8;
    static final int CONTINUATION = 0x9;

    static final int FLAG_END_STREAM = 0x1;
    static final int FLAG_ACK = 0x1;
    static final int FLAG_END_HEADERS = 0x4;
    static final int FLAG_PADDED = 0x8;
    static final int FLAG_PRIORITY = 0x20;

    static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    static final int SETTINGS_ENABLE_PUSH = 0x2;
    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    static final int SETTINGS_MAX_FRAME_SIZE = 0x5;

    static final int NO_ERROR = 0x0;
    static final int PROTOCOL_ERROR = 0x1;
    static final int FLOW_CONTROL_ERROR = 0x3;
    static final int FRAME_SIZE_ERROR = 0x6;
    static final int CANCEL = 0x8;
    static final int COMPRESSION_ERROR = 0x9;

    /** Fields HTTP/2 forbids (RFC 9113, 8.2.2), or carries as a pseudo-field ({@code host}). */
    private static final Set<String> CONNECTION_FIELDS = Set.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host");

    private Http2Frames() {
    }

    /** A frame's 9-byte header, in a buffer of its own (its payload follows in another). */
    static ByteBuffer header(int payloadBytes, int type, int flags, int streamId) {
        ByteBuffer header = ByteBuffer.allocate(FRAME_HEADER_BYTES);
        putHeader(header, payloadBytes, type, flags, streamId);
        return header.flip();
    }

    private static void putHeader(ByteBuffer frame, int payloadBytes, int type, int flags, int streamId) {
        frame.put((byte) (payloadBytes >>> 16)).put((byte) (payloadBytes >>> 8)).put((byte) payloadBytes)
                .put((byte) type).put((byte) flags).putInt(streamId);
    }

    /**
     * What the client sends first: the preface, its SETTINGS (no push; each stream's window and the connection's
     * {@code windowBytes}, as h2load's defaults make them), and the connection's window raised to match.
     */
    static ByteBuffer opening(int windowBytes) {
        ByteBuffer opening = ByteBuffer.allocate(PREFACE.length + FRAME_HEADER_BYTES + 12 + FRAME_HEADER_BYTES + 4);
        opening.put(PREFACE);
        putHeader(opening, 12, SETTINGS, 0, 0);
        opening.putShort((short) SETTINGS_ENABLE_PUSH).putInt(0);
        opening.putShort((short) SETTINGS_INITIAL_WINDOW_SIZE).putInt(windowBytes);
        putHeader(opening, 4, WINDOW_UPDATE, 0, 0);
        opening.putInt(windowBytes - DEFAULT_WINDOW_BYTES);
        return opening.flip();
    }

    static ByteBuffer settingsAck() {
        return header(0, SETTINGS, FLAG_ACK, 0);
    }

    static ByteBuffer pingAck(long opaque) {
        ByteBuffer ping = ByteBuffer.allocate(FRAME_HEADER_BYTES + 8);
        putHeader(ping, 8, PING, FLAG_ACK, 0);
        return ping.putLong(opaque).flip();
    }

    static ByteBuffer windowUpdate(int streamId, int bytes) {
        ByteBuffer update = ByteBuffer.allocate(FRAME_HEADER_BYTES + 4);
        putHeader(update, 4, WINDOW_UPDATE, 0, streamId);
        return update.putInt(bytes).flip();
    }

    static ByteBuffer reset(int streamId, int errorCode) {
        ByteBuffer reset = ByteBuffer.allocate(FRAME_HEADER_BYTES + 4);
        putHeader(reset, 4, RST_STREAM, 0, streamId);
        return reset.putInt(errorCode).flip();
    }

    static ByteBuffer goAway(int lastStreamId, int errorCode) {
        ByteBuffer goAway = ByteBuffer.allocate(FRAME_HEADER_BYTES + 8);
        putHeader(goAway, 8, GOAWAY, 0, 0);
        return goAway.putInt(lastStreamId).putInt(errorCode).flip();
    }

    /**
     * The request's header fields in the order they are sent, names in lower case: the pseudo-fields, then the spec's
     * headers (a {@code host} header names the authority), then the body's type and length.
     */
    static List<String[]> requestFields(Resource resource, String scheme, String authority, String pathAndQuery, byte[] body) {
        List<String[]> headers = new ArrayList<>();
        boolean typed = false;
        for (HttpField field : resource.getRequestHeaders()) {
            String name = field.getName().toLowerCase(Locale.ROOT);
            if (name.equals("host")) {
                authority = field.getValue();
            }
            boolean replaced = body != null && name.equals("content-length");   // the body's own length goes instead
            boolean forbidden = name.equals("te") && !field.getValue().equalsIgnoreCase("trailers");   // RFC 9113, 8.2.2
            if (!CONNECTION_FIELDS.contains(name) && !replaced && !forbidden) {
                headers.add(new String[] {name, field.getValue()});
                typed |= name.equals("content-type");
            }
        }
        if (body != null) {
            if (!typed) {
                headers.add(new String[] {"content-type", "text/plain;charset=UTF-8"});
            }
            headers.add(new String[] {"content-length", Integer.toString(body.length)});
        }
        List<String[]> fields = new ArrayList<>();
        fields.add(new String[] {":method", resource.getMethod().toUpperCase(Locale.ROOT)});
        fields.add(new String[] {":scheme", scheme});
        fields.add(new String[] {":authority", authority});
        fields.add(new String[] {":path", pathAndQuery});
        fields.addAll(headers);
        return fields;
    }

    /** The bytes an entry of these fields takes in the server's table (RFC 7541, 4.1), for those not in the static table. */
    static int tableBytes(List<String[]> fields) {
        int bytes = 0;
        for (String[] field : fields) {
            if (staticIndex(field[0], field[1]) == 0) {
                bytes += field[0].getBytes(StandardCharsets.UTF_8).length + field[1].getBytes(StandardCharsets.UTF_8).length + 32;
            }
        }
        return bytes;
    }

    /**
     * A connection's first header block: a field in the static table by its index, every other as a literal added to the
     * server's table ({@code indexed}) or not added (when the server's table cannot hold them all). It starts with a
     * table size update when the server announced a table smaller than HPACK's initial one ({@code shrunkTo}; -1: none).
     */
    static byte[] firstBlock(List<String[]> fields, boolean indexed, int shrunkTo) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        if (shrunkTo >= 0) {
            integer(block, 0x20, 5, shrunkTo);
        }
        for (String[] field : fields) {
            int index = staticIndex(field[0], field[1]);
            if (index > 0) {
                integer(block, 0x80, 7, index);
                continue;
            }
            int nameIndex = staticIndex(field[0], null);
            if (indexed) {
                integer(block, 0x40, 6, nameIndex);
            } else {
                integer(block, 0x00, 4, nameIndex);
            }
            if (nameIndex == 0) {
                string(block, field[0]);
            }
            string(block, field[1]);
        }
        return block.toByteArray();
    }

    /**
     * Every later header block, once the first added its fields to the server's table: each field an index. The first
     * block added them in order, so the last added is the newest (index 62).
     */
    static byte[] laterBlock(List<String[]> fields) {
        int added = (int) fields.stream().filter(field -> staticIndex(field[0], field[1]) == 0).count();
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        int addedSoFar = 0;
        for (String[] field : fields) {
            int index = staticIndex(field[0], field[1]);
            if (index == 0) {
                addedSoFar++;
                index = HpackContext.STATIC_SIZE + 1 + (added - addedSoFar);
            }
            integer(block, 0x80, 7, index);
        }
        return block.toByteArray();
    }

    /** The static table's index of the name and value (value null: of the name alone), or 0. */
    static int staticIndex(String name, String value) {
        for (int index = 1; index <= HpackContext.STATIC_SIZE; index++) {
            String[] entry = HpackContext.STATIC_TABLE[index];
            if (entry[0].equals(name) && (value == null || value.equals(entry[1]))) {
                return index;
            }
        }
        return 0;
    }

    private static void integer(ByteArrayOutputStream out, int firstBits, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(firstBits | value);
            return;
        }
        out.write(firstBits | max);
        value -= max;
        while (value >= 0x80) {
            out.write((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.write(value);
    }

    /** A string literal, not Huffman-coded: the server reads it as it is. */
    private static void string(ByteArrayOutputStream out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        integer(out, 0x00, 7, bytes.length);
        out.writeBytes(bytes);
    }
}
