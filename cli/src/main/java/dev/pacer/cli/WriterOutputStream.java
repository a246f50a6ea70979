package dev.pacer.cli;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** Lets the commands print through picocli's writers (tests capture them). */
final class WriterOutputStream extends OutputStream {
    private final PrintWriter writer;

    WriterOutputStream(PrintWriter writer) {
        this.writer = writer;
    }

    @Override
    public void write(int b) {
        writer.write(b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        writer.write(new String(bytes, offset, length, StandardCharsets.UTF_8));
    }

    @Override
    public void flush() {
        writer.flush();
    }
}
