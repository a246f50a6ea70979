package dev.pacer.loadgen;

import java.nio.ByteBuffer;

/**
 * Where one HTTP/1.1 response ends, for the common response only: a head whole in the buffer, a {@code Content-Length}
 * and no {@code Transfer-Encoding}. The client needs no more of a response than its status, whether the server closes
 * the connection after it, and where it ends; Jetty's {@code HttpParser} builds a field (and strings) for every header
 * on the way, which was its largest cost per request against nginx. Anything else (a head split between reads, chunked
 * or close-delimited bodies, HTTP/1.0, 1xx, a malformed or unusual head) is {@link Step#DELEGATE}d untouched, and that
 * response is read by Jetty's parser, which also judges what is malformed. A response read here ends exactly where
 * Jetty's parser would end it ({@code ResponseFramingTest} holds the two to it).
 */
final class ResponseFraming {
    /** What a call to {@link #read} did. */
    enum Step {
        /** The response's bytes in the buffer were consumed; it goes on in the next read. */
        NEED_MORE,
        /** The response ended: {@link #status()} and {@link #closeAfter()} tell about it. */
        COMPLETE,
        /** Not a response this reads: nothing was consumed, Jetty's parser reads it whole. */
        DELEGATE
    }

    private static final byte[] HTTP_1_1 = {'H', 'T', 'T', 'P', '/', '1', '.', '1', ' '};
    private static final byte[] CONTENT_LENGTH = lower("content-length");
    private static final byte[] TRANSFER_ENCODING = lower("transfer-encoding");
    private static final byte[] CONNECTION = lower("connection");
    private static final byte[] CLOSE = lower("close");
    /** Longer bodies than 10^18 bytes are left to Jetty. */
    private static final int MAX_LENGTH_DIGITS = 18;
    private static final boolean[] TOKEN = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TOKEN[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TOKEN[c] = true;
            TOKEN[Character.toUpperCase(c)] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TOKEN[c] = true;
        }
    }

    /** Body bytes of the current response not yet read; -1 between responses. */
    private long bodyRemaining = -1;
    private int status;
    private boolean closeAfter;

    /** Between two responses: the next read starts at a response's head. */
    boolean betweenResponses() {
        return bodyRemaining < 0;
    }

    int status() {
        return status;
    }

    boolean closeAfter() {
        return closeAfter;
    }

    /**
     * Reads the current response's bytes from {@code buffer} (from its position), never beyond its end. A buffer with no
     * array behind it is left to Jetty's parser.
     *
     * @param headRequest the request was a HEAD: whatever its head says, the response has no body
     */
    Step read(ByteBuffer buffer, boolean headRequest) {
        if (bodyRemaining < 0 && (!buffer.hasArray() || !readHead(buffer, headRequest))) {
            return Step.DELEGATE;
        }
        int taken = (int) Math.min(bodyRemaining, buffer.remaining());
        buffer.position(buffer.position() + taken);
        bodyRemaining -= taken;
        if (bodyRemaining > 0) {
            return Step.NEED_MORE;
        }
        bodyRemaining = -1;
        return Step.COMPLETE;
    }

    /** A whole head of the kind read here: consumed, status, close and body length taken. Otherwise nothing is consumed. */
    private boolean readHead(ByteBuffer buffer, boolean headRequest) {
        byte[] a = buffer.array();
        int base = buffer.arrayOffset();
        int at = base + buffer.position();
        int end = base + buffer.limit();
        if (end - at < HTTP_1_1.length + 5) {
            return false;
        }
        for (byte b : HTTP_1_1) {
            if (a[at++] != b) {
                return false;   // HTTP/1.0 (its own rules for the connection), or not HTTP
            }
        }
        int code = digit(a[at]) * 100 + digit(a[at + 1]) * 10 + digit(a[at + 2]);
        if (code < 200) {   // 1xx comes before the response; a negative sum: not three digits
            return false;
        }
        at += 3;
        // a reason phrase begins with a visible ASCII character: Jetty refuses a tab or a byte above 0x7E there
        if (a[at] != '\r' && (a[at] != ' ' || at + 1 >= end || a[at + 1] < 0x21 || a[at + 1] > 0x7E)) {
            return false;
        }
        at = lineEnd(a, at, end);
        if (at < 0) {
            return false;
        }
        long length = -1;
        boolean close = false;
        while (true) {
            if (at + 1 >= end) {
                return false;   // the head goes on in the next read
            }
            if (a[at] == '\r' && a[at + 1] == '\n') {
                at += 2;
                break;   // the blank line: the head is whole
            }
            int nameStart = at;
            while (at < end && isToken(a[at])) {
                at++;
            }
            if (at == nameStart || at >= end || a[at] != ':') {
                return false;   // an empty name, a space before the colon, a folded line: Jetty judges those
            }
            int nameEnd = at;
            int lineEnd = lineEnd(a, at + 1, end);
            if (lineEnd < 0) {
                return false;
            }
            if (named(a, nameStart, nameEnd, CONTENT_LENGTH)) {
                if (length >= 0) {
                    return false;   // twice: Jetty decides whether the two agree
                }
                int valueStart = skipSpaces(a, nameEnd + 1, lineEnd - 2);
                length = number(a, valueStart, trimSpaces(a, valueStart, lineEnd - 2));
                if (length < 0) {
                    return false;
                }
            } else if (named(a, nameStart, nameEnd, TRANSFER_ENCODING)) {
                return false;   // chunked, most often: Jetty reads it
            } else if (named(a, nameStart, nameEnd, CONNECTION)) {
                if (!plainList(a, nameEnd + 1, lineEnd - 2)) {
                    return false;   // quoted or with parameters ("close;x=1"): Jetty's reading of it decides
                }
                close |= hasCloseToken(a, nameEnd + 1, lineEnd - 2);
            }
            at = lineEnd;
        }
        boolean bodiless = headRequest || code == 204 || code == 304;
        if (!bodiless && length < 0) {
            return false;   // a body delimited by the connection's close
        }
        buffer.position(at - base);
        status = code;
        closeAfter = close;
        bodyRemaining = bodiless ? 0 : length;
        return true;
    }

    /**
     * Just past the CRLF ending the line that goes on from {@code from}; -1 when it ends beyond the buffer, or holds a
     * control character (a bare LF, a NUL...) that Jetty's parser may refuse.
     */
    private static int lineEnd(byte[] a, int from, int end) {
        for (int i = from; i < end; i++) {
            byte b = a[i];
            if ((b & 0xE0) == 0 || b == 0x7F) {   // below 0x20, or DEL: rare but for the CR
                if (b == '\r') {
                    return i + 1 < end && a[i + 1] == '\n' ? i + 2 : -1;
                }
                if (b != '\t') {
                    return -1;
                }
            }
        }
        return -1;
    }

    private static int skipSpaces(byte[] a, int from, int to) {
        while (from < to && isSpace(a[from])) {
            from++;
        }
        return from;
    }

    private static int trimSpaces(byte[] a, int from, int to) {
        while (to > from && isSpace(a[to - 1])) {
            to--;
        }
        return to;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t';
    }

    private static boolean isToken(byte b) {
        return b > 0 && TOKEN[b];
    }

    private static int digit(byte b) {
        return b >= '0' && b <= '9' ? b - '0' : -1_000;
    }

    /** A name is ASCII: ORing 0x20 lowers its letters, and makes no other token character a letter. */
    private static boolean named(byte[] a, int from, int to, byte[] lowerName) {
        if (to - from != lowerName.length) {
            return false;
        }
        for (int i = 0; i < lowerName.length; i++) {
            if ((a[from + i] | 0x20) != lowerName[i]) {
                return false;
            }
        }
        return true;
    }

    /** The decimal value, or -1 when it is not digits alone. */
    private static long number(byte[] a, int from, int to) {
        if (to == from || to - from > MAX_LENGTH_DIGITS) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            int d = digit(a[i]);
            if (d < 0) {
                return -1;
            }
            value = value * 10 + d;
        }
        return value;
    }

    /** Tokens, commas and spaces alone. */
    private static boolean plainList(byte[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!isToken(a[i]) && a[i] != ',' && !isSpace(a[i])) {
                return false;
            }
        }
        return true;
    }

    /** Whether the comma-separated list holds the token {@code close}, in any case. */
    private static boolean hasCloseToken(byte[] a, int from, int to) {
        int tokenStart = from;
        for (int i = from; i <= to; i++) {
            if (i == to || a[i] == ',') {
                int start = skipSpaces(a, tokenStart, i);
                if (named(a, start, trimSpaces(a, start, i), CLOSE)) {
                    return true;
                }
                tokenStart = i + 1;
            }
        }
        return false;
    }

    private static byte[] lower(String name) {
        return name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
