package dev.pacer.loadgen;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.pacer.contract.RunRequest;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.frames.DataFrame;
import org.eclipse.jetty.http2.frames.GoAwayFrame;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.http2.frames.SettingsFrame;
import org.eclipse.jetty.io.Transport;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.Invocable;
import org.mortbay.jetty.load.generator.Resource;

/**
 * A {@link Shard} for h2c and h2 on Jetty's low-level HTTP/2 client: sessions and streams, no request or response
 * object, no listener chain. A request is one HEADERS frame built from the same request head every time (its header
 * fields made once; HPACK's dynamic table makes their encoding an index after the first); its response is read on the
 * selector thread, its status from the response's HEADERS, its DATA released as it arrives.
 * <ul>
 *   <li>each connection carries up to {@code maxConcurrentStreams} requests at once (the lower of the run's and the
 *       server's own limit, from its SETTINGS). A free stream is a slot in a {@link ConnectionRing}, so a request
 *       finding none waits and goes out on the thread that ends the next stream, as an HTTP/1.1 request waits for a
 *       connection;</li>
 *   <li>a connection joins once the server's SETTINGS came (it speaks HTTP/2; over TLS, ALPN chose h2 and the handshake
 *       succeeded, each handshake timed);</li>
 *   <li>a connection that closes (GOAWAY, a reset, a failure) is replaced once, through the shard's one
 *       {@link Reconnector}: a server gone costs one connect per {@value Reconnector#REOPEN_DELAY_MS} ms, not one per
 *       connection. A request that waited for a reconnect counts the wait as send lag;</li>
 *   <li>a request unanswered {@code requestTimeout} after it went to the wire fails as a timeout and its stream is
 *       reset (its answer, should it come, would belong to nobody); its connection stays;</li>
 *   <li>with {@code requestsPerConnection}, a connection that began that many streams takes no more, is closed once they
 *       ended, and another is opened at once;</li>
 *   <li>the pacing loop may run on the selector's thread ({@link PacingClientConnector}).</li>
 * </ul>
 */
final class Http2Shard extends RingShard<Http2Shard.Http2Connection, Http2Shard.Pending> {
    private final HTTP2Client http2;
    private final ClientTls.Factory sslContext;
    private final InetSocketAddress address;
    private final MetaData.Request head;
    /** The request's body, or null: sent as one DATA frame after the HEADERS. */
    private final ByteBuffer body;
    private final int streamsAsked;
    private final int requestsPerConnection;
    private final long timeoutMs;

    Http2Shard(int index, RunRequest spec, Resource resource, int connections, int maxQueued, Completions completions) {
        super(index, spec, connections, maxQueued, completions);
        URI base = URI.create(spec.targetUrl());
        int port = base.getPort() < 0 ? (spec.https() ? 443 : 80) : base.getPort();
        this.address = ClientTls.address(base.getHost(), port, spec.tls());
        String authority = spec.tls() != null && spec.tls().serverName() != null ? spec.tls().serverName() : base.getHost();
        String bodyText = spec.request() == null || spec.request().body() == null || spec.request().body().isEmpty() ? null : spec.request().body();
        this.body = bodyText == null ? null : ByteBuffer.wrap(bodyText.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
        this.head = head(resource, base.resolve(resource.getPath()), spec.https() ? "https" : "http", authority, port, body);
        this.streamsAsked = spec.streamsPerConnection();
        this.requestsPerConnection = spec.tls() == null ? 0 : spec.tls().requestsPerConnection();
        this.timeoutMs = spec.effectiveRequestTimeoutMs();
        sslContext = spec.https() ? ClientTls.contextFactory(spec.tls()) : null;
        if (sslContext != null) {
            connector.setSslContextFactory(sslContext);
        }
        http2 = new HTTP2Client(connector);
        http2.setIdleTimeout(0);   // a connection idle at a low rate is not closed by the client
        http2.setStreamIdleTimeout(0);   // the shard's own sweep times requests out: no timer per stream
        http2.setMaxConcurrentPushedStreams(0);
        http2.setInputBufferSize(16 * 1024);
        if (sslContext != null) {
            http2.addBean(sslContext.handshakeTimer(completions::handshake));
        }
    }

    /** The request's head as every stream sends it: method, scheme, authority, path, the spec's headers, the body's length and type. */
    static MetaData.Request head(Resource resource, URI target, String scheme, String host, int port, ByteBuffer body) {
        HttpFields.Mutable fields = HttpFields.build();
        boolean typed = false;
        for (HttpField field : resource.getRequestHeaders()) {
            fields.add(field.getName(), field.getValue());
            typed |= field.getHeader() == HttpHeader.CONTENT_TYPE;
        }
        if (body != null && !typed) {
            fields.add(HttpHeader.CONTENT_TYPE, "text/plain;charset=UTF-8");
        }
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        HttpURI uri = HttpURI.build().scheme(scheme).host(host).port(port).path(path).query(target.getRawQuery()).asImmutable();
        return new MetaData.Request(resource.getMethod(), uri, HttpVersion.HTTP_2, fields.asImmutable(), body == null ? -1 : body.remaining());
    }

    @Override
    public void connect(long timeoutMs) throws Exception {
        http2.start();
        openAll(timeoutMs, false);   // a request takes the stream idle longest: the first go one per connection, as h2load's do
    }

    /** A connection, once the server's SETTINGS came (over TLS: after the handshake and ALPN), or why it could not be. */
    @Override
    protected CompletableFuture<Http2Connection> open() {
        Http2Connection connection = new Http2Connection();
        // Jetty's TLS connections take the handshake listeners among the beans of the holder the context names
        Map<String, Object> context = new HashMap<>();
        context.put(org.eclipse.jetty.client.HttpClient.class.getName(), http2);
        http2.connect(Transport.TCP_IP, sslContext, address, connection, new Promise<>() {
            @Override
            public void succeeded(Session session) {
                connection.session = session;
            }

            @Override
            public void failed(Throwable failure) {
                connection.opened.completeExceptionally(failure);
            }
        }, context);
        // the connect timeout covers TCP's connect; a handshake or SETTINGS that never comes must not keep the shard one connection short
        return connection.opened.orTimeout(2 * LoadRun.CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS).whenComplete((ok, failure) -> {
            if (failure != null) {
                connection.abandon();
            }
        });
    }

    @Override
    protected int slots(Http2Connection connection) {
        return connection.streams;
    }

    @Override
    protected void join(Http2Connection connection) {
        connection.join();
    }

    @Override
    protected Pending newRequest(long intendedNanos, long handedNanos) {
        return new Pending(intendedNanos, handedNanos);
    }

    @Override
    protected void send(Http2Connection connection, Pending pending) {
        connection.send(pending);
    }

    @Override
    protected void neverSent(Pending pending, Throwable failure) {
        pending.neverSent(failure);
    }

    @Override
    protected void stopClients() throws Exception {
        http2.stop();
    }

    /**
     * One request: its intended time, its hand-off, when it went to the wire, and its stream's events. It ends once,
     * answered or failed; then it is recorded and its stream's slot goes back to the ring.
     */
    final class Pending extends RingShard.Request implements Stream.Listener, Promise<Stream>, Invocable {
        Http2Connection connection;
        private volatile Stream stream;
        private int status;
        private final AtomicBoolean ended = new AtomicBoolean();

        Pending(long intendedNanos, long handedNanos) {
            super(intendedNanos, handedNanos);
        }

        /** No connection could be opened for it: it never went to the wire. */
        void neverSent(Throwable failure) {
            if (ended.compareAndSet(false, true)) {
                completions.sendLag(handedNanos - intendedNanos);
                finish(this, 0, failure);
            }
        }

        /** The stream was made and its HEADERS queued: the body, if any, follows. */
        @Override
        public void succeeded(Stream stream) {
            this.stream = stream;
            if (body != null) {
                stream.data(new DataFrame(stream.getId(), body.duplicate(), true), Callback.NOOP);
            }
        }

        /** The stream could not be made (the connection closed meanwhile, or the server's stream limit). */
        @Override
        public void failed(Throwable failure) {
            end(0, failure);
        }

        @Override
        public void onHeaders(Stream stream, HeadersFrame frame) {
            if (frame.getMetaData() instanceof MetaData.Response response) {
                if (response.getStatus() < 200 && !frame.isEndStream()) {
                    return;   // an interim response: the final one follows
                }
                status = response.getStatus();
            }
            if (frame.isEndStream()) {
                end(status, null);
            } else {
                stream.demand();
            }
        }

        @Override
        public void onDataAvailable(Stream stream) {
            while (true) {
                Stream.Data data = stream.readData();
                if (data == null) {
                    stream.demand();
                    return;
                }
                boolean last = data.frame().isEndStream();
                data.release();   // gives the flow-control window back
                if (last) {
                    end(status, null);
                    return;
                }
            }
        }

        @Override
        public void onReset(Stream stream, ResetFrame frame, Callback callback) {
            end(0, new IOException("the server reset the stream: " + ErrorCode.toString(frame.getError(), "error " + frame.getError())));
            callback.succeeded();
        }

        /** On the wire longer than the timeout: it fails so, and its stream is reset. */
        void timeOutIfLate(long nowNanos) {
            if (nowNanos - begunNanos > timeoutNanos && !ended.get()) {
                end(0, new TimeoutException("no response within " + timeoutMs + " ms"));
                Stream made = stream;
                if (made != null) {
                    made.reset(new ResetFrame(made.getId(), ErrorCode.CANCEL_STREAM_ERROR.code), Callback.NOOP);
                }
            }
        }

        @Override
        public void onFailure(Stream stream, int error, String reason, Throwable failure, Callback callback) {
            end(0, failure != null ? failure : new IOException(reason));
            callback.succeeded();
        }

        /** Recorded at once, then the stream's slot goes back (a request waiting goes out on it). */
        void end(int status, Throwable failure) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            finish(this, status, failure);
            connection.streamEnded(this);
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }

    /** One HTTP/2 connection (a session), carrying up to {@link #streams} requests at once. */
    final class Http2Connection implements Session.Listener, RingShard.Carrier {
        final CompletableFuture<Http2Connection> opened = new CompletableFuture<>();
        volatile Session session;
        /** Streams it may carry at once: the run's, or the server's limit when lower. Set once, before it joins. */
        int streams;
        /** Requests on it now, to close it once a retiring one carries none. */
        private final AtomicInteger onWire = new AtomicInteger();
        private final AtomicInteger begun = new AtomicInteger();
        private volatile boolean closed;
        private volatile boolean retiring;
        private final AtomicBoolean replacementClaimed = new AtomicBoolean();
        private volatile boolean carried;
        private volatile boolean joined;

        Http2Connection() {
            live.add(this);
        }

        @Override
        public boolean usable() {
            return !closed && !retiring;
        }

        @Override
        public boolean joined() {
            return joined;
        }

        void join() {
            joined = true;
            if (closed) {   // closed before it joined: its own close did not replace it
                replaceOnce();
            }
        }

        @Override
        public void replaceOnce() {
            if (replacementClaimed.compareAndSet(false, true)) {
                reconnector.replace(carried);
            }
        }

        void send(Pending pending) {
            if (!carried) {   // written once: not a volatile write per request
                carried = true;
            }
            pending.connection = this;
            onWire.incrementAndGet();
            if (closed) {   // closed after the ring found it open: the request never went out
                pending.end(0, new ClosedChannelException());
                return;
            }
            if (requestsPerConnection > 0 && begun.incrementAndGet() >= requestsPerConnection) {
                retiring = true;   // takes no more streams; closed once those on the wire ended
                replaceOnce();
            }
            session.newStream(new HeadersFrame(head, null, body == null), pending, pending);
        }

        void streamEnded(Pending pending) {
            if (onWire.decrementAndGet() == 0 && retiring && !closed && session != null) {
                session.close(ErrorCode.NO_ERROR.code, "retired after " + requestsPerConnection + " requests", Callback.NOOP);
            }
            ring.release(this);
        }

        /** The server's first SETTINGS: it speaks HTTP/2, and says how many streams it takes at once. */
        @Override
        public void onSettings(Session session, SettingsFrame frame) {
            if (opened.isDone()) {
                return;
            }
            Integer serverLimit = frame.getSettings().get(SettingsFrame.MAX_CONCURRENT_STREAMS);
            streams = serverLimit == null ? streamsAsked : Math.max(1, Math.min(streamsAsked, serverLimit));
            this.session = session;
            if (!opened.complete(this)) {
                abandon();
            }
        }

        @Override
        public void onGoAway(Session session, GoAwayFrame frame) {
            closed(new EOFException("the server closed the connection (GOAWAY " + ErrorCode.toString(frame.getError(), "") + ")"));
        }

        @Override
        public void onClose(Session session, GoAwayFrame frame, Callback callback) {
            closed(new EOFException("the connection closed"));
            callback.succeeded();
        }

        @Override
        public void onFailure(Session session, Throwable failure, Callback callback) {
            closed(failure);
            callback.succeeded();
        }

        @Override
        public boolean onIdleTimeout(Session session) {
            return false;   // the client never closes an idle connection
        }

        @Override
        public void timeOutIfLate(long nowNanos) {
            forEachOnWire(pending -> pending.timeOutIfLate(nowNanos));
        }

        /** The requests whose streams are open on it (Jetty fails those it has not opened yet through their promise). */
        private void forEachOnWire(java.util.function.Consumer<Pending> action) {
            Session made = session;
            if (made != null) {
                for (Stream stream : made.getStreams()) {
                    if (stream.getListener() instanceof Pending pending) {
                        action.accept(pending);
                    }
                }
            }
        }

        /** Given up on before it joined (its open failed or took too long): nobody will use it. */
        void abandon() {
            closed = true;
            live.remove(this);
            Session made = session;
            if (made != null) {
                made.close(ErrorCode.NO_ERROR.code, "not needed", Callback.NOOP);
            }
        }

        /** The streams still on it fail with the reason, and it is replaced once when it carried the shard's load. */
        private void closed(Throwable cause) {
            closed = true;
            live.remove(this);
            reopenedAtNanos.remove(this);
            opened.completeExceptionally(cause);
            forEachOnWire(pending -> pending.end(0, cause));
            if (joined) {
                replaceOnce();
            }
        }
    }
}
