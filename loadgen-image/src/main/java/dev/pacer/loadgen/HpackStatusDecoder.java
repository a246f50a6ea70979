package dev.pacer.loadgen;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.eclipse.jetty.http.compression.EncodingException;
import org.eclipse.jetty.http.compression.HuffmanDecoder;
import org.eclipse.jetty.http2.hpack.HpackContext;

/**
 * Reads a response's {@code :status} from its HPACK header block (RFC 7541), and nothing else: the other fields are
 * skipped, but every one a block adds to the dynamic table is counted there (its name and value's decoded sizes), so that
 * the indexes of the next blocks resolve as the server meant them. A table entry keeps its value only when its name is
 * {@code :status}; no map, no header field object. One per connection: blocks are decoded in the order they came.
 */
final class HpackStatusDecoder {
    /** HPACK's per-entry overhead (RFC 7541, 4.1). */
    private static final int ENTRY_OVERHEAD_BYTES = 32;
    private static final int STATIC_ENTRIES = 61;
    private static final String STATUS = ":status";

    private final int maxTableBytesAllowed;
    private int maxTableBytes;
    private int tableBytes;
    /** The dynamic table, newest first from {@link #newest}: each entry's size, its name's length and, for {@code :status}, its value. */
    private int[] sizes = new int[16];
    private int[] nameLengths = new int[16];
    private String[] statuses = new String[16];
    private int newest;   // the slot of index 62
    private int entries;
    private final HuffmanDecoder huffman = new HuffmanDecoder();
    /** The last Huffman-coded strings added to the table, as coded, and their decoded lengths. */
    private static final int CODED_CACHED = 8;
    private final byte[][] codedSeen = new byte[CODED_CACHED][];
    private final int[] decodedSeen = new int[CODED_CACHED];
    private int nextCached;

    /** @param maxTableBytes the {@code SETTINGS_HEADER_TABLE_SIZE} the client announced (HPACK's default: 4,096) */
    HpackStatusDecoder(int maxTableBytes) {
        this.maxTableBytesAllowed = maxTableBytes;
        this.maxTableBytes = maxTableBytes;
    }

    /**
     * Decodes one complete header block.
     *
     * @return its {@code :status}, or 0 when it has none (trailers)
     * @throws HpackException when the block breaks HPACK: the connection must close
     */
    int status(ByteBuffer block) throws HpackException {
        int status = 0;
        while (block.hasRemaining()) {
            int first = block.get(block.position()) & 0xFF;
            if ((first & 0x80) != 0) {   // indexed field
                String value = statusAt(integer(block, 7));
                if (value != null) {
                    status = parseStatus(value);
                }
            } else if ((first & 0x40) != 0) {   // literal, added to the table
                int nameIndex = integer(block, 6);
                boolean isStatus;
                int nameBytes;
                if (nameIndex == 0) {
                    isStatus = isStatusLiteral(block);
                    nameBytes = decodedLength(block);
                } else {
                    isStatus = isStatusName(nameIndex);
                    nameBytes = nameBytesAt(nameIndex);
                }
                if (isStatus) {
                    String value = string(block);
                    status = parseStatus(value);
                    add(nameBytes, value.length(), value);
                } else {
                    add(nameBytes, decodedLength(block), null);
                }
            } else if ((first & 0x20) != 0) {   // the table's size changes
                int size = integer(block, 5);
                if (size > maxTableBytesAllowed) {
                    throw new HpackException("table size " + size + " above the " + maxTableBytesAllowed + " announced");
                }
                maxTableBytes = size;
                evictTo(maxTableBytes);
            } else {   // literal, not added (never indexed, or without indexing)
                int nameIndex = integer(block, 4);
                boolean isStatus;
                if (nameIndex == 0) {
                    isStatus = isStatusLiteral(block);
                    skip(block);
                } else {
                    isStatus = isStatusName(nameIndex);
                }
                if (isStatus) {
                    status = parseStatus(string(block));
                } else {
                    skip(block);
                }
            }
        }
        return status;
    }

    /** The dynamic table's size as HPACK counts it: the encoder's, when both agree. */
    int tableBytes() {
        return tableBytes;
    }

    private static int parseStatus(String value) throws HpackException {
        if (value.length() != 3) {
            throw new HpackException("bad :status " + value);
        }
        int status = 0;
        for (int i = 0; i < 3; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw new HpackException("bad :status " + value);
            }
            status = status * 10 + (c - '0');
        }
        return status;
    }

    private boolean isStatusName(int index) throws HpackException {
        if (index <= STATIC_ENTRIES) {
            return STATUS.equals(HpackContext.STATIC_TABLE[index][0]);
        }
        return statuses[slot(index)] != null;
    }

    private int nameBytesAt(int index) throws HpackException {
        if (index <= STATIC_ENTRIES) {
            return HpackContext.STATIC_TABLE[index][0].length();
        }
        return nameLengths[slot(index)];
    }

    /** The value at an index when its name is {@code :status}, else null. */
    private String statusAt(int index) throws HpackException {
        if (index == 0) {
            throw new HpackException("index 0");
        }
        if (index <= STATIC_ENTRIES) {
            String[] entry = HpackContext.STATIC_TABLE[index];
            return STATUS.equals(entry[0]) ? entry[1] : null;
        }
        return statuses[slot(index)];
    }

    private int slot(int index) throws HpackException {
        int age = index - STATIC_ENTRIES - 1;
        if (age >= entries) {
            throw new HpackException("index " + index + " beyond the table's " + entries + " entries");
        }
        return (newest + age) % sizes.length;
    }

    private void add(int nameBytes, int valueBytes, String status) {
        int size = nameBytes + valueBytes + ENTRY_OVERHEAD_BYTES;
        if (size > maxTableBytes) {   // larger than the table: empties it, and is not added (RFC 7541, 4.4)
            evictTo(0);
            return;
        }
        evictTo(maxTableBytes - size);
        if (entries == sizes.length) {
            grow();
        }
        newest = (newest - 1 + sizes.length) % sizes.length;
        sizes[newest] = size;
        nameLengths[newest] = nameBytes;
        statuses[newest] = status;
        entries++;
        tableBytes += size;
    }

    private void evictTo(int bytes) {
        while (tableBytes > bytes) {
            int oldest = (newest + entries - 1) % sizes.length;
            tableBytes -= sizes[oldest];
            statuses[oldest] = null;
            entries--;
        }
    }

    private void grow() {
        int[] moreSizes = new int[sizes.length * 2];
        int[] moreNameLengths = new int[sizes.length * 2];
        String[] moreStatuses = new String[sizes.length * 2];
        for (int age = 0; age < entries; age++) {
            moreSizes[age] = sizes[(newest + age) % sizes.length];
            moreNameLengths[age] = nameLengths[(newest + age) % sizes.length];
            moreStatuses[age] = statuses[(newest + age) % sizes.length];
        }
        sizes = moreSizes;
        nameLengths = moreNameLengths;
        statuses = moreStatuses;
        newest = 0;
    }

    /** An integer with an N-bit prefix (RFC 7541, 5.1). */
    private static int integer(ByteBuffer block, int prefixBits) throws HpackException {
        int max = (1 << prefixBits) - 1;
        int value = block.get() & max;
        if (value < max) {
            return value;
        }
        int shift = 0;
        while (true) {
            if (!block.hasRemaining()) {
                throw new HpackException("an integer is cut short");
            }
            int next = block.get() & 0xFF;
            if (shift > 21) {
                throw new HpackException("an integer is too large");
            }
            value += (next & 0x7F) << shift;
            shift += 7;
            if ((next & 0x80) == 0) {
                return value;
            }
        }
    }

    /** Whether the string literal that starts here is {@code :status}; reads nothing. */
    private boolean isStatusLiteral(ByteBuffer block) throws HpackException {
        int at = block.position();
        if ((block.get(at) & 0x80) != 0) {   // Huffman-coded: rare for a name; decoded on a copy
            return STATUS.equals(string(block.duplicate()));
        }
        if ((block.get(at) & 0x7F) != STATUS.length() || block.remaining() < 1 + STATUS.length()) {
            return false;
        }
        for (int i = 0; i < STATUS.length(); i++) {
            if (block.get(at + 1 + i) != STATUS.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Passes over a string literal. */
    private static void skip(ByteBuffer block) throws HpackException {
        int length = literalLength(block);
        block.position(block.position() + length);
    }

    /**
     * Passes over a string literal and tells its decoded length, what the table counts. A Huffman-coded one is decoded
     * once: the lengths of the last few seen are kept by their coded bytes, since a server sends the same values again
     * and again (its name, a date that changes once a second).
     */
    private int decodedLength(ByteBuffer block) throws HpackException {
        boolean huffmanCoded = (block.get(block.position()) & 0x80) != 0;
        int length = literalLength(block);
        int from = block.position();
        block.position(from + length);
        if (!huffmanCoded) {
            return length;
        }
        byte[] array = block.array();
        int start = block.arrayOffset() + from;
        for (int i = 0; i < CODED_CACHED; i++) {
            byte[] seen = codedSeen[i];
            if (seen != null && Arrays.equals(seen, 0, seen.length, array, start, start + length)) {
                return decodedSeen[i];
            }
        }
        int decoded = huffman(block.duplicate().position(from), length).length();
        codedSeen[nextCached] = Arrays.copyOfRange(array, start, start + length);
        decodedSeen[nextCached] = decoded;
        nextCached = (nextCached + 1) % CODED_CACHED;
        return decoded;
    }

    /** A string literal's length prefix, checked against what the block holds. */
    private static int literalLength(ByteBuffer block) throws HpackException {
        if (!block.hasRemaining()) {
            throw new HpackException("a string is missing");
        }
        int length = integer(block, 7);
        if (length > block.remaining()) {
            throw new HpackException("a string of " + length + " bytes is cut short");
        }
        return length;
    }

    /** A string literal (RFC 7541, 5.2), Huffman-coded or not. */
    private String string(ByteBuffer block) throws HpackException {
        boolean huffmanCoded = (block.get(block.position()) & 0x80) != 0;
        int length = literalLength(block);
        if (!huffmanCoded) {
            String text = new String(block.array(), block.arrayOffset() + block.position(), length, StandardCharsets.ISO_8859_1);
            block.position(block.position() + length);
            return text;
        }
        return huffman(block, length);
    }

    private String huffman(ByteBuffer block, int length) throws HpackException {
        huffman.reset();
        huffman.setLength(length);
        try {
            String text = huffman.decode(block);
            if (text == null) {
                throw new HpackException("a Huffman string is cut short");
            }
            return text;
        } catch (EncodingException e) {
            throw new HpackException("a bad Huffman string: " + e.getMessage());
        }
    }
    /** The block breaks HPACK (a COMPRESSION_ERROR): the connection cannot go on. */
    static final class HpackException extends Exception {
        HpackException(String message) {
            super(message);
        }
    }
}
