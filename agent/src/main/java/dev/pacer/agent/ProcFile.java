package dev.pacer.agent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A {@code /proc} file read once a period: kept open, and read again from its start, where the kernel writes it
 * afresh. Code that runs once a second runs interpreted, and opening, sizing and splitting a file into lines is most of
 * what it would cost, on the CPUs of the server under test.
 */
final class ProcFile implements AutoCloseable {
    private final Path path;
    private FileChannel channel;
    private ByteBuffer buffer;

    /** @param expectedBytes what it usually holds: the buffer starts there and doubles when the file is longer */
    ProcFile(Path path, int expectedBytes) {
        this.path = path;
        this.buffer = ByteBuffer.allocate(expectedBytes);
    }

    /**
     * Its text now, or null where it cannot be read or reads empty (a task's file once the task ended): it is then
     * closed, and opened again at the next read, which finds whatever the path names by then.
     */
    String read() {
        try {
            if (channel == null) {
                channel = FileChannel.open(path);
            }
            buffer.clear();
            while (true) {
                int read = channel.read(buffer, buffer.position());
                if (read <= 0) {
                    break;
                }
                if (!buffer.hasRemaining()) {   // a longer file (/proc/stat of many CPUs): read whole into one twice the size
                    buffer = ByteBuffer.allocate(buffer.capacity() * 2);
                }
            }
            if (buffer.position() == 0) {
                close();
                return null;
            }
            return new String(buffer.array(), 0, buffer.position(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            close();
            return null;
        }
    }

    /** The value after {@code field} (named with its colon, e.g. {@code VmRSS:}) on its line of {@code text}, trimmed; null where absent. */
    static String field(String text, String field) {
        int at = text.startsWith(field) ? 0 : text.indexOf("\n" + field);
        if (at < 0) {
            return null;
        }
        int start = text.indexOf(field, at) + field.length();
        int end = text.indexOf('\n', start);
        return text.substring(start, end < 0 ? text.length() : end).trim();
    }

    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // read only: nothing was lost
            }
            channel = null;
        }
    }
}
