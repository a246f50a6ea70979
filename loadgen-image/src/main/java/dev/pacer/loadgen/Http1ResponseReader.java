package dev.pacer.loadgen;

import java.io.EOFException;
import java.nio.ByteBuffer;

import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;

/**
 * Reads a connection's responses, one after the other, for what the client keeps of each: its status, whether the server
 * closes the connection after it, and where it ends. A common response ({@link ResponseFraming}) is framed without
 * Jetty's {@link HttpParser}; any other is read by the parser, whole. Not thread-safe: one connection's reads.
 */
final class Http1ResponseReader implements HttpParser.ResponseHandler {
    private final boolean headRequest;
    /** Null: Jetty's parser reads every response (the reference the framing is tested against). */
    private final ResponseFraming framing;
    private final HttpParser parser = new HttpParser(this);
    /** The current response is the parser's, to its end. */
    private boolean parsing;
    private int status;
    private boolean closeAfter;
    private boolean complete;
    private Throwable badResponse;

    Http1ResponseReader(boolean headRequest) {
        this(headRequest, true);
    }

    Http1ResponseReader(boolean headRequest, boolean framed) {
        this.headRequest = headRequest;
        this.framing = framed ? new ResponseFraming() : null;
        parser.setHeadResponse(headRequest);
    }

    /**
     * Reads from {@code buffer} until the current response completes, or the buffer is consumed. An interim response
     * (1xx: 100 Continue, 103 Early Hints) is read and passed over: the request's answer is the final one after it.
     */
    void read(ByteBuffer buffer) {
        readOne(buffer);
        if (complete && status >= 100 && status < 200) {
            next();
        }
    }

    private void readOne(ByteBuffer buffer) {
        if (!parsing && framing != null) {
            switch (framing.read(buffer, headRequest)) {
                case COMPLETE -> {
                    status = framing.status();
                    closeAfter = framing.closeAfter();
                    complete = true;
                    return;
                }
                case NEED_MORE -> {
                    return;
                }
                case DELEGATE -> parsing = true;
            }
        }
        parser.parseNext(buffer);
    }

    /** The server closed the connection: a response delimited by the close completes, with what {@code buffer} still holds. */
    void readAtEndOfInput(ByteBuffer buffer) {
        if (parsing || framing == null || framing.betweenResponses()) {
            parser.atEOF();
            parser.parseNext(buffer);
        } else {
            earlyEOF();   // within a framed body
        }
    }

    boolean complete() {
        return complete;
    }

    int status() {
        return status;
    }

    boolean closeAfter() {
        return closeAfter;
    }

    /** A response the parser refused or the server cut short; null when none. */
    Throwable badResponse() {
        return badResponse;
    }

    /** The completed response taken: the next read starts at the next one. */
    void next() {
        complete = false;
        status = 0;
        closeAfter = false;
        if (parsing || framing == null) {
            parsing = false;
            parser.reset();
            parser.setHeadResponse(headRequest);
        }
    }

    @Override
    public void startResponse(HttpVersion version, int code, String reason) {
        status = code;
        closeAfter = version != HttpVersion.HTTP_1_1;
    }

    @Override
    public void parsedHeader(HttpField field) {
        if (field.getHeader() == HttpHeader.CONNECTION && field.contains(HttpHeaderValue.CLOSE.asString())) {
            closeAfter = true;
        }
    }

    @Override
    public boolean headerComplete() {
        return false;
    }

    @Override
    public boolean content(ByteBuffer content) {
        return false;   // the body is read and dropped
    }

    @Override
    public boolean contentComplete() {
        return false;
    }

    @Override
    public boolean messageComplete() {
        complete = true;
        return true;
    }

    @Override
    public void earlyEOF() {
        badResponse = new EOFException("the server closed the connection within a response");
    }

    @Override
    public void badMessage(HttpException failure) {
        badResponse = failure instanceof Throwable t ? t : new IllegalStateException(String.valueOf(failure));
    }
}
