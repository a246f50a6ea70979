package dev.pacer.loadgen;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.pacer.contract.RunRequest;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.ClientConnectionFactory;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.io.Transport;
import org.eclipse.jetty.io.ssl.SslClientConnectionFactory;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.mortbay.jetty.load.generator.Resource;

/**
 * A {@link Shard} for HTTP/1.1 on Jetty's I/O layer: a {@link ClientConnector} of its own (one selector), its
 * connections opened before the load, every request the same pre-encoded bytes written on an idle connection, every
 * response read on the selector thread that received it by an {@link Http1ResponseReader}: framed where it ends when it
 * is a common one, else parsed by Jetty's {@code HttpParser}. No request or response object, no header fields kept, no
 * listeners: a request costs a write, and its response a read and a scan of its head.
 * <ul>
 *   <li>idle connections and requests that are due are paired by a {@link ConnectionRing}: a request finding every
 *       connection busy goes out on the thread that completes the next response;</li>
 *   <li>a connection that closes ({@code Connection: close}, the server's idle timeout, a reset) is replaced at once,
 *       in the background, as wrk's are: idle connections the server closes do not silently leave fewer open than the
 *       run asks for. A request that waited for a reconnect counts the wait as send lag;</li>
 *   <li>a request unanswered {@code timeoutMs} after it went to the wire fails as a timeout and its connection is
 *       closed (its answer, should it come, would belong to nobody) and replaced;</li>
 *   <li>over TLS ({@link ClientTls}), a connection joins the ring once its handshake succeeded, each handshake timed; with
 *       {@code requestsPerConnection}, a connection that served that many is closed and another opened at once.</li>
 * </ul>
 */
final class Http1Shard extends RingShard<Http1Shard.Http1Connection, Http1Shard.Pending> {
    static final int READ_BUFFER_BYTES = 16 * 1024;

    private final InetSocketAddress address;
    private final ByteBuffer request;
    private final boolean headRequest;
    private final WireOpener<Http1Connection> opener;
    /** A connection is retired after this many responses (0: never), and replaced at once. */
    private final int requestsPerConnection;
    private final boolean lastUsedFirst;

    Http1Shard(int index, RunRequest spec, Resource resource, int connections, int maxQueued, Completions completions) {
        super(index, spec, connections, maxQueued, completions);
        URI base = URI.create(spec.targetUrl());
        int port = base.getPort() < 0 ? (spec.https() ? 443 : 80) : base.getPort();
        this.address = ClientTls.address(base.getHost(), port, spec.tls());
        this.requestsPerConnection = spec.tls() == null ? 0 : spec.tls().requestsPerConnection();
        this.lastUsedFirst = spec.lastUsedFirst();
        String body = spec.request() == null || spec.request().body() == null || spec.request().body().isEmpty() ? null : spec.request().body();
        String authority = (spec.tls() != null && spec.tls().serverName() != null ? spec.tls().serverName() : base.getHost()) + ":" + port;
        this.request = encode(resource, base.resolve(resource.getPath()), authority, body).asReadOnlyBuffer();
        this.headRequest = "HEAD".equalsIgnoreCase(resource.getMethod());
        connector.setIdleTimeout(Duration.ZERO);   // a connection idle at a low rate is not closed by the client
        opener = new WireOpener<>(connector, address, spec.https() ? ClientTls.contextFactory(spec.tls()) : null, null,
                Http1Connection.class, Http1Connection::new);
    }

    /** The request as it goes on the wire, every time: request line, Host, the spec's headers, the body's length and type. */
    static ByteBuffer encode(Resource resource, URI target, String host, String body) {
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        StringBuilder head = new StringBuilder(resource.getMethod()).append(' ').append(path);
        if (target.getRawQuery() != null) {
            head.append('?').append(target.getRawQuery());
        }
        head.append(" HTTP/1.1\r\nHost: ").append(host).append("\r\n");
        boolean typed = false;
        for (HttpField field : resource.getRequestHeaders()) {
            head.append(field.getName()).append(": ").append(field.getValue()).append("\r\n");
            typed |= field.getHeader() == HttpHeader.CONTENT_TYPE;
        }
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            if (!typed) {
                head.append("Content-Type: text/plain;charset=UTF-8\r\n");
            }
            head.append("Content-Length: ").append(content.length).append("\r\n");
        }
        byte[] headBytes = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        // direct: each write hands the kernel these bytes as they are, without a copy into a direct buffer first
        return ByteBuffer.allocateDirect(headBytes.length + content.length).put(headBytes).put(content).flip();
    }

    @Override
    public void connect(long timeoutMs) throws Exception {
        connector.start();
        opener.start(threads, completions::handshake);
        openAll(timeoutMs, lastUsedFirst);
    }

    /** A connection, once open (over TLS: once its handshake succeeded), or why it could not be. */
    @Override
    protected CompletableFuture<Http1Connection> open() {
        return opener.open();
    }

    @Override
    protected int slots(Http1Connection connection) {
        return 1;
    }

    @Override
    protected void join(Http1Connection connection) {
        connection.join();
    }

    @Override
    protected Pending newRequest(long intendedNanos, long handedNanos) {
        return new Pending(intendedNanos, handedNanos);
    }

    @Override
    protected void send(Http1Connection connection, Pending pending) {
        connection.send(pending);
    }

    @Override
    protected void neverSent(Pending pending, Throwable failure) {
        pending.neverSent(failure);
    }

    @Override
    protected void stopClients() throws Exception {
        connector.stop();
    }

    /** A connection that served its {@code requestsPerConnection}: closed, and another opened in its place at once. */
    private void retire(Http1Connection connection) {
        connection.replaceOnce();
    }

    /**
     * A request taken: its intended time, its hand-off by the pacing loop, and when it went to the wire. Its connection
     * goes back to the ring once both its write has completed and its response has (a fast server answers before the
     * writing thread is out of the write: the next write must not start before).
     */
    final class Pending extends RingShard.Request implements Callback {
        Http1Connection connection;
        private final AtomicInteger untilReleased = new AtomicInteger(2);

        Pending(long intendedNanos, long handedNanos) {
            super(intendedNanos, handedNanos);
        }

        /** No connection could be opened for it: it never went to the wire. */
        void neverSent(Throwable failure) {
            completions.sendLag(handedNanos - intendedNanos);
            finish(this, 0, failure);
        }

        /** The write completed. */
        @Override
        public void succeeded() {
            if (untilReleased.decrementAndGet() == 0) {
                ring.release(connection);
            }
        }

        /** The response completed: recorded at once, then the connection goes back (a request waiting goes out on it). */
        void answered(int status) {
            finish(this, status, null);
            if (untilReleased.decrementAndGet() == 0) {
                ring.release(connection);
            }
        }

        /** It failed: the connection (closed, and replaced) goes back at once; only once. */
        void failedOn(Http1Connection on, Throwable failure) {
            if (untilReleased.getAndSet(0) > 0) {
                ring.release(on);
            }
            finish(this, 0, failure);
        }

        /**
         * The write failed: this request fails so, and the connection closes (and is replaced). A write reported
         * failed after its response completed (a server closing the connection with its answer while the writing
         * thread was still in the write) fails nothing, but the connection still goes back, to be replaced.
         */
        @Override
        public void failed(Throwable failure) {
            connection.fail(this, failure);   // releases the connection when the request was still unanswered
            connection.getEndPoint().close(failure);
            if (untilReleased.decrementAndGet() == 0) {
                ring.release(connection);
            }
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }

    /** One connection: at most one request on the wire, its response parsed on the selector thread as it arrives. */
    final class Http1Connection extends AbstractConnection.NonBlocking implements RingShard.Carrier {
        final AtomicReference<Pending> current = new AtomicReference<>();
        private final Http1ResponseReader responses = new Http1ResponseReader(headRequest);
        /**
         * Taken from the connector's pool for a read and given back once what it holds is read (the reader keeps what
         * it needs of a response split between reads): 10,000 mostly idle connections hold no buffer, and a read lands
         * in one just used. Held only within {@link #onFillable}.
         */
        private RetainableByteBuffer in;
        private volatile boolean closed;
        private final AtomicBoolean replacementClaimed = new AtomicBoolean();
        /** Whether a request was ever sent on it. */
        private volatile boolean carried;
        /**
         * Opened (over TLS: its handshake succeeded) and given to the ring. Only such a connection can carry the requests
         * waiting: one whose handshake never ends stays open, and a failed reopen must not wait for it.
         */
        private volatile boolean joined;
        private int answered;

        Http1Connection(EndPoint endPoint) {
            super(endPoint, threads);
            live.add(this);
        }

        @Override
        public void onOpen() {
            super.onOpen();
            if (opener.overTls()) {
                try {   // a client speaks first: this starts the handshake, as Jetty's negotiating connections do
                    getEndPoint().flush(BufferUtil.EMPTY_BUFFER);
                } catch (IOException e) {
                    getEndPoint().close(e);
                    return;
                }
            }
            fillInterested();
        }

        @Override
        public boolean usable() {
            return !closed && getEndPoint().isOpen();
        }

        @Override
        public boolean joined() {
            return joined;
        }

        /**
         * Opens another in place of this closed (or retiring) one, once, whoever asks first: at once, or 100 ms later when
         * it closed before carrying a request, so that a server that accepts and closes at once is not reconnected to in
         * a loop.
         */
        @Override
        public void replaceOnce() {
            if (!replacementClaimed.compareAndSet(false, true)) {
                return;
            }
            reconnector.replace(carried);
        }

        void join() {
            joined = true;
            if (closed) {   // closed before it joined: its own close did not replace it
                replaceOnce();
            }
        }

        void send(Pending pending) {
            if (!carried) {   // written once: not a volatile write per request
                carried = true;
            }
            pending.connection = this;
            current.set(pending);
            if (closed) {   // closed after the ring found it open: the request never went out
                fail(pending, new ClosedChannelException());
                return;
            }
            getEndPoint().write(pending, request.duplicate());
        }

        /** The request on this connection fails, once, and the connection goes back to the ring to be replaced. */
        void fail(Pending pending, Throwable failure) {
            if (current.compareAndSet(pending, null)) {
                closed = true;
                pending.failedOn(this, failure);
            }
        }

        @Override
        public void onFillable() {
            try {
                while (true) {
                    if (in == null) {
                        // on the heap: Jetty's parser reads a heap buffer's array, a direct one byte by byte
                        in = connector.getByteBufferPool().acquire(READ_BUFFER_BYTES, false);
                    }
                    ByteBuffer buffer = in.getByteBuffer();
                    if (!buffer.hasRemaining()) {
                        BufferUtil.clear(buffer);
                        int read = getEndPoint().fill(buffer);
                        if (read == 0) {
                            releaseInput();
                            fillInterested();
                            return;
                        }
                        if (read < 0) {   // a response delimited by the close completes now; the connection is gone
                            closed = true;
                            responses.readAtEndOfInput(buffer);
                            releaseInput();
                            if (responses.complete()) {
                                responded();
                            }
                            getEndPoint().close(new EOFException("the server closed the connection"));
                            return;
                        }
                    }
                    responses.read(buffer);
                    if (responses.badResponse() != null) {
                        releaseInput();
                        getEndPoint().close(responses.badResponse());
                        return;
                    }
                    if (responses.complete()) {
                        if (!responded()) {
                            releaseInput();
                            return;
                        }
                        if (!buffer.hasRemaining()) {
                            // all read, and the next response can only follow the next request: the selector (over TLS,
                            // the TLS endpoint, for records it holds already) says when it comes, where another read now
                            // would cost a system call to find nothing
                            releaseInput();
                            fillInterested();
                            return;
                        }
                    }
                }
            } catch (Throwable failure) {
                releaseInput();
                getEndPoint().close(failure);
            }
        }

        private void releaseInput() {
            if (in != null) {
                in.release();
                in = null;
            }
        }

        /**
         * The response is complete: it is recorded, then the connection goes back (once its write completed too), and a
         * request waiting goes out on it. A response asking to close the connection closes it, and it is replaced.
         *
         * @return whether the connection stays open to read on
         */
        private boolean responded() {
            int status = responses.status();
            boolean close = responses.closeAfter();
            responses.next();
            Pending pending = current.getAndSet(null);
            if (requestsPerConnection > 0 && ++answered >= requestsPerConnection && !close) {
                close = true;
                retire(this);
            }
            if (close) {
                closed = true;
                getEndPoint().close();
            }
            if (pending != null) {
                pending.answered(status);
            }
            return !close;
        }

        /** A request on the wire longer than the timeout fails so, and its connection is closed, and replaced. */
        @Override
        public void timeOutIfLate(long nowNanos) {
            Pending pending = current.get();
            if (pending != null && nowNanos - pending.begunNanos > timeoutNanos) {
                closed = true;   // its answer, should it come, belongs to nobody
                fail(pending, new TimeoutException("no response within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"));
                getEndPoint().close();
            }
        }

        @Override
        public void onClose(Throwable cause) {
            closed = true;
            super.onClose(cause);
            live.remove(this);
            reopenedAtNanos.remove(this);
            Pending pending = current.get();
            if (pending != null) {   // it was on the wire: its failure, and the connection back to be replaced
                fail(pending, cause != null ? cause : new EOFException("the connection closed before the response"));
            }
            if (joined) {   // idle in the ring too: replaced now, not when a burst next reaches it
                replaceOnce();
            }
        }
    }
}
