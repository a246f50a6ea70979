package dev.pacer.loadgen;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import dev.pacer.contract.RunRequest;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.IteratingCallback;
import org.mortbay.jetty.load.generator.Resource;

/**
 * A {@link Shard} for h2c and h2 on Jetty's I/O layer, as {@link Http1Shard} is for HTTP/1.1: HTTP/2's framing is the
 * shard's own ({@link Http2Frames}), a request one HEADERS frame whose header block is made once per connection (the
 * first adds its fields to the server's HPACK table, every later one is their indexes), a response's frames read on the
 * selector thread that received them, its {@code :status} the only field decoded ({@link HpackStatusDecoder}). No
 * session, stream, request or response object, no listener: a request costs a write, and its response a read and a scan.
 * <ul>
 *   <li>each connection carries up to {@code maxConcurrentStreams} requests at once (the lower of the run's and the
 *       server's own limit, from its SETTINGS). A free stream is a slot in a {@link ConnectionRing}, so a request
 *       finding none waits and goes out on the thread that ends the next stream, as an HTTP/1.1 request waits for a
 *       connection;</li>
 *   <li>a connection joins once the server's SETTINGS came (it speaks HTTP/2; over TLS, ALPN chose h2 and the handshake
 *       succeeded, each handshake timed);</li>
 *   <li>a connection that closes (a GOAWAY, a reset, a failure) is replaced once, through the shard's one
 *       {@link Reconnector}: a server gone costs one connect per {@value Reconnector#REOPEN_DELAY_MS} ms, not one per
 *       connection. A request that waited for a reconnect counts the wait as send lag. After a GOAWAY, the streams the
 *       server said it would not process fail, those it would are answered;</li>
 *   <li>a request unanswered {@code requestTimeout} after it went to the wire fails as a timeout and its stream is
 *       reset (its answer, should it come, would belong to nobody); its connection stays;</li>
 *   <li>with {@code requestsPerConnection}, a connection that began that many streams takes no more, is closed once they
 *       ended, and another is opened at once;</li>
 *   <li>the windows: the client gives each stream and the connection 2^30 - 1 bytes, as h2load does, and gives back what
 *       it read once half is used; a request's body goes out as the server's windows allow.</li>
 * </ul>
 */
final class Http2Shard extends RingShard<Http2Shard.Http2Connection, Http2Shard.Pending> {
    static final int READ_BUFFER_BYTES = 32 * 1024;   // holds a whole frame of the largest size the client allows, and more
    /** Each stream's receive window and the connection's, as h2load's defaults ({@code -w 30 -W 30}). */
    static final int WINDOW_BYTES = (1 << 30) - 1;
    /** A connection whose stream ids near their end takes no more, and is replaced. */
    private static final int LAST_STREAM_ID = Integer.MAX_VALUE - 2 * RunRequest.MAX_CONCURRENT_STREAMS;

    private final WireOpener<Http2Connection> opener;
    private final List<String[]> fields;
    private final int fieldsTableBytes;
    /** The request's body, or null: sent in DATA frames after the HEADERS. */
    private final byte[] body;
    private final int streamsAsked;
    private final int requestsPerConnection;
    private final long timeoutMs;
    /** Reads that found nothing to read (the selector said readable, or a read was tried after the last). */
    private final LongAdder emptyReads = new LongAdder();

    Http2Shard(int index, RunRequest spec, Resource resource, int connections, int maxQueued, Completions completions) {
        super(index, spec, connections, maxQueued, completions);
        URI base = URI.create(spec.targetUrl());
        int port = base.getPort() < 0 ? (spec.https() ? 443 : 80) : base.getPort();
        InetSocketAddress address = ClientTls.address(base.getHost(), port, spec.tls());
        String authority = (spec.tls() != null && spec.tls().serverName() != null ? spec.tls().serverName() : base.getHost()) + ":" + port;
        String bodyText = spec.request() == null || spec.request().body() == null || spec.request().body().isEmpty() ? null : spec.request().body();
        this.body = bodyText == null ? null : bodyText.getBytes(StandardCharsets.UTF_8);
        URI target = base.resolve(resource.getPath());
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        this.fields = Http2Frames.requestFields(resource, spec.https() ? "https" : "http", authority,
                target.getRawQuery() == null ? path : path + "?" + target.getRawQuery(), body);
        this.fieldsTableBytes = Http2Frames.tableBytes(fields);
        this.streamsAsked = spec.streamsPerConnection();
        this.requestsPerConnection = spec.tls() == null ? 0 : spec.tls().requestsPerConnection();
        this.timeoutMs = spec.effectiveRequestTimeoutMs();
        opener = new WireOpener<>(connector, address, spec.https() ? ClientTls.contextFactory(spec.tls()) : null, "h2",
                Http2Connection.class, Http2Connection::new);
    }

    @Override
    public void connect(long timeoutMs) throws Exception {
        connector.start();
        opener.start(threads, completions::handshake);
        openAll(timeoutMs, false);   // a request takes the stream idle longest: the first go one per connection, as h2load's do
    }

    /** Reads on its connections that found nothing: each costs a system call. */
    long emptyReads() {
        return emptyReads.sum();
    }

    /** A connection, once the server's SETTINGS came (over TLS: after the handshake and ALPN), or why it could not be. */
    @Override
    protected CompletableFuture<Http2Connection> open() {
        return opener.open().thenCompose(connection -> connection.settled
                .orTimeout(2 * LoadRun.CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .whenComplete((ok, failure) -> {
                    if (failure != null) {   // given up on: nobody would use it
                        connection.getEndPoint().close(failure);
                    }
                }));
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
        connector.stop();
    }

    /**
     * One request: its intended time, its hand-off, when it went to the wire, and its stream. It ends once, answered or
     * failed; then it is recorded and its stream's slot goes back to the ring.
     */
    final class Pending extends RingShard.Request {
        Http2Connection connection;
        int streamId;
        int status;
        /** Bytes of the response's DATA not yet given back to the stream's window. */
        int unacknowledgedBytes;
        /** The body's bytes not yet sent, and the stream's send window: the connection's lock guards them. */
        int bodySent;
        long sendWindowBytes;
        /** It had a stream before: a later one sends it again. Read and written under its connection's lock, as it gets a stream. */
        boolean onTheWire;
        private final AtomicBoolean ended = new AtomicBoolean();

        Pending(long intendedNanos, long handedNanos) {
            super(intendedNanos, handedNanos);
        }

        /** No connection could be opened for it: it never went to the wire (again). */
        void neverSent(Throwable failure) {
            if (ended.compareAndSet(false, true)) {
                if (!dispatched) {   // a request sent again had its lag told when it first went out
                    completions.sendLag(handedNanos - intendedNanos);
                }
                finish(this, 0, failure);
            }
        }

        /**
         * The server did not begin it: its stream's slot goes back, and it goes out once more on another stream, as far
         * as {@link #mayResend} allows; else it ends with {@code failure}.
         */
        void refused(Throwable failure) {
            if (!mayResend(this, connection.serverProcessedAny)) {
                end(0, failure);
                return;
            }
            reset();
            resend(this);
        }

        /**
         * It never went out: its connection was found closed, or gone away, as it was sent. Its slot goes back and it
         * waits for another stream, as far as {@link #requeue} allows; else it ends with {@code failure}.
         */
        void notSent(Throwable failure) {
            if (!running) {
                end(0, failure);
                return;
            }
            reset();
            requeue(this);
        }

        /** Its stream's state cleared and its slot back: the connection takes no more, so the slot only leads to its replacement. */
        private void reset() {
            status = 0;
            unacknowledgedBytes = 0;
            bodySent = 0;
            connection.streamEnded();
        }

        /** Recorded at once, then the stream's slot goes back (a request waiting goes out on it). */
        void end(int status, Throwable failure) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            finish(this, status, failure);
            connection.streamEnded();
        }
    }

    /** One HTTP/2 connection, carrying up to {@link #streams} requests at once, its frames read on the selector thread. */
    final class Http2Connection extends AbstractConnection.NonBlocking implements RingShard.Carrier {
        /** The server's first SETTINGS came: the connection speaks HTTP/2 and knows how many streams it may open. */
        final CompletableFuture<Http2Connection> settled = new CompletableFuture<>();
        /** Streams it may carry at once: the run's, or the server's limit when lower. Set once, before it joins. */
        volatile int streams;
        /** The server answered a stream on it, or named one in a GOAWAY as processed: it refuses others for their place, not their own sake. */
        volatile boolean serverProcessedAny;

        // guarded by this: the streams open, in the order of their ids on the wire
        private final OpenStreams<Pending> open = new OpenStreams<>(streamsAsked);
        private final ArrayDeque<ByteBuffer> toWrite = new ArrayDeque<>();
        private final ArrayDeque<Pending> bodiesWaiting = new ArrayDeque<>();
        private int nextStreamId = 1;
        private int begun;
        private byte[] firstBlock;
        private byte[] laterBlock;
        private boolean blockIndexed;
        private long connectionSendWindowBytes = Http2Frames.DEFAULT_WINDOW_BYTES;
        private int peerInitialWindowBytes = Http2Frames.DEFAULT_WINDOW_BYTES;
        private int peerMaxFrameBytes = Http2Frames.DEFAULT_MAX_FRAME_BYTES;
        private boolean closeOnceWritten;

        // the selector thread's alone
        private final HpackStatusDecoder statuses = new HpackStatusDecoder(Http2Frames.DEFAULT_HEADER_TABLE_BYTES);
        private RetainableByteBuffer in;
        private ByteBuffer continued;   // a header block split over CONTINUATION frames, until its end
        private int continuedStreamId;
        private boolean continuedEndsStream;
        private int connectionUnacknowledgedBytes;

        /**
         * A read that filled less than the buffer's space read all the socket held: true of the socket's own endpoint
         * (the selector reports a socket readable for as long as it holds data), not of TLS's, which may hand over one
         * record of several read.
         */
        private final boolean shortReadEmptiesSocket;
        private final Flusher flusher = new Flusher();
        private volatile boolean closed;
        /** Takes no new stream: closed once those on the wire ended. Retired by the client, or told so by a GOAWAY. */
        private volatile boolean draining;
        /** The server's GOAWAY came: a stream opened now would not be processed. */
        private volatile boolean goneAway;
        private final AtomicBoolean replacementClaimed = new AtomicBoolean();
        private volatile boolean carried;
        private volatile boolean joined;

        Http2Connection(EndPoint endPoint) {
            super(endPoint, threads);
            shortReadEmptiesSocket = endPoint instanceof SocketChannelEndPoint;
            live.add(this);
        }

        @Override
        public void onOpen() {
            super.onOpen();
            write(Http2Frames.opening(WINDOW_BYTES));   // over TLS, this starts the handshake: a client speaks first
            fillInterested();
        }

        @Override
        public boolean usable() {
            return !closed && !draining;
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

        /** Opens a stream for the request: its HEADERS (and body) queued in the order of its id, then written. */
        void send(Pending pending) {
            if (!carried) {   // written once: not a volatile write per request
                carried = true;
            }
            pending.connection = this;
            boolean retire = false;
            boolean sent;
            boolean sentBefore = false;
            // decided under the lock: once in open, a GOAWAY read on the selector thread may hand the request to another
            // connection, whose send then writes its fields
            synchronized (this) {
                sent = !(closed || goneAway);
                if (!sent) {   // closed after the ring found it open: the request never went out
                    pending.streamId = 0;
                } else {
                    sentBefore = pending.onTheWire;
                    pending.onTheWire = true;
                    int id = nextStreamId;
                    nextStreamId += 2;
                    pending.streamId = id;
                    open.put(id, pending);
                    byte[] block = blockIndexed ? laterBlock : firstBlock;
                    blockIndexed = laterBlock != null;
                    int flags = Http2Frames.FLAG_END_HEADERS | (body == null ? Http2Frames.FLAG_END_STREAM : 0);
                    queueHeaders(block, flags, id);
                    if (body != null) {
                        pending.sendWindowBytes = peerInitialWindowBytes;
                        bodiesWaiting.add(pending);
                        queueBodies();
                    }
                    if ((requestsPerConnection > 0 && ++begun >= requestsPerConnection) || nextStreamId > LAST_STREAM_ID) {
                        draining = true;   // takes no more streams; closed once those on the wire ended
                        retire = true;
                    }
                }
            }
            if (!sent) {
                pending.notSent(new ClosedChannelException());
                return;
            }
            if (sentBefore) {
                completions.resent();
            }
            if (retire) {
                replaceOnce();
            }
            flusher.iterate();
        }

        /** A header block: one HEADERS frame, or HEADERS and CONTINUATIONs when it is larger than a frame. Holds the lock. */
        private void queueHeaders(byte[] block, int flags, int streamId) {
            if (block.length <= peerMaxFrameBytes) {
                toWrite.add(Http2Frames.header(block.length, Http2Frames.HEADERS, flags, streamId));
                toWrite.add(ByteBuffer.wrap(block));
                return;
            }
            for (int from = 0; from < block.length; from += peerMaxFrameBytes) {
                int bytes = Math.min(peerMaxFrameBytes, block.length - from);
                boolean last = from + bytes == block.length;
                int type = from == 0 ? Http2Frames.HEADERS : Http2Frames.CONTINUATION;
                int frameFlags = (from == 0 ? flags & ~Http2Frames.FLAG_END_HEADERS : 0) | (last ? Http2Frames.FLAG_END_HEADERS : 0);
                toWrite.add(Http2Frames.header(bytes, type, frameFlags, streamId));
                toWrite.add(ByteBuffer.wrap(block, from, bytes));
            }
        }

        /** The bodies waiting, in order, as far as the windows allow. Holds the lock. */
        private void queueBodies() {
            while (!bodiesWaiting.isEmpty()) {
                Pending pending = bodiesWaiting.peek();
                if (pending.ended.get()) {   // answered, reset or failed meanwhile: the rest of its body goes nowhere
                    bodiesWaiting.poll();
                    continue;
                }
                while (pending.bodySent < body.length) {
                    long window = Math.min(connectionSendWindowBytes, pending.sendWindowBytes);
                    int bytes = (int) Math.min(Math.min(window, peerMaxFrameBytes), body.length - pending.bodySent);
                    if (bytes <= 0) {
                        return;   // a WINDOW_UPDATE will go on
                    }
                    boolean last = pending.bodySent + bytes == body.length;
                    toWrite.add(Http2Frames.header(bytes, Http2Frames.DATA, last ? Http2Frames.FLAG_END_STREAM : 0, pending.streamId));
                    toWrite.add(ByteBuffer.wrap(body, pending.bodySent, bytes));
                    pending.bodySent += bytes;
                    connectionSendWindowBytes -= bytes;
                    pending.sendWindowBytes -= bytes;
                }
                bodiesWaiting.poll();
            }
        }

        void streamEnded() {
            boolean closeNow;
            synchronized (this) {
                closeNow = draining && open.isEmpty();
                if (closeNow) {
                    toWrite.add(Http2Frames.goAway(0, Http2Frames.NO_ERROR));
                    closeOnceWritten = true;
                }
            }
            if (closeNow) {
                flusher.iterate();
            }
            ring.release(this);
        }

        private void write(ByteBuffer frame) {
            synchronized (this) {
                toWrite.add(frame);
            }
            flusher.iterate();
        }

        /** Writes what is queued, one gathering write at a time, in the order queued. */
        private final class Flusher extends IteratingCallback {
            @Override
            protected Action process() {
                ByteBuffer[] frames;
                synchronized (Http2Connection.this) {
                    if (toWrite.isEmpty()) {
                        if (closeOnceWritten) {
                            getEndPoint().close();
                        }
                        return Action.IDLE;
                    }
                    frames = toWrite.toArray(ByteBuffer[]::new);
                    toWrite.clear();
                }
                getEndPoint().write(this, frames);
                return Action.SCHEDULED;
            }

            @Override
            protected void onCompleteFailure(Throwable cause) {
                getEndPoint().close(cause);
            }

            @Override
            public InvocationType getInvocationType() {
                return InvocationType.NON_BLOCKING;
            }
        }

        @Override
        public void onFillable() {
            try {
                while (true) {
                    if (in == null) {
                        // on the heap: header blocks are read from the buffer's array
                        in = connector.getByteBufferPool().acquire(READ_BUFFER_BYTES, false);
                        BufferUtil.clear(in.getByteBuffer());
                    }
                    ByteBuffer buffer = in.getByteBuffer();
                    int space = BufferUtil.space(buffer);
                    int read = getEndPoint().fill(buffer);
                    if (read < 0) {
                        releaseInput();
                        getEndPoint().close(new EOFException("the server closed the connection"));
                        return;
                    }
                    if (read == 0) {
                        emptyReads.increment();
                        awaitMore(buffer);
                        return;
                    }
                    if (!readFrames(buffer)) {
                        releaseInput();
                        return;
                    }
                    if (buffer.hasRemaining()) {
                        BufferUtil.compact(buffer);   // a frame begun: its rest lands after it
                    } else {
                        BufferUtil.clear(buffer);
                    }
                    if (read < space && shortReadEmptiesSocket) {
                        // the socket held no more than was read: another read now would cost a system call to find
                        // nothing; the selector says when more comes
                        awaitMore(buffer);
                        return;
                    }
                }
            } catch (Throwable failure) {
                releaseInput();
                getEndPoint().close(failure);
            }
        }

        /** Back to the selector until more comes, the buffer kept only for a frame begun. */
        private void awaitMore(ByteBuffer buffer) {
            if (!buffer.hasRemaining()) {   // no frame begun: 10,000 idle connections hold no buffer
                releaseInput();
            }
            fillInterested();
        }

        private void releaseInput() {
            if (in != null) {
                in.release();
                in = null;
            }
        }

        /**
         * Reads the whole frames in the buffer, and leaves a frame begun in it.
         *
         * @return whether the connection goes on (false: it broke the protocol, and is closing)
         */
        private boolean readFrames(ByteBuffer buffer) throws IOException {
            while (buffer.remaining() >= Http2Frames.FRAME_HEADER_BYTES) {
                int at = buffer.position();
                int length = ((buffer.get(at) & 0xFF) << 16) | ((buffer.get(at + 1) & 0xFF) << 8) | (buffer.get(at + 2) & 0xFF);
                if (length > Http2Frames.DEFAULT_MAX_FRAME_BYTES) {
                    return broken(Http2Frames.FRAME_SIZE_ERROR, "a frame of " + length + " bytes, above the " + Http2Frames.DEFAULT_MAX_FRAME_BYTES + " allowed");
                }
                if (buffer.remaining() < Http2Frames.FRAME_HEADER_BYTES + length) {
                    return true;
                }
                int type = buffer.get(at + 3) & 0xFF;
                int flags = buffer.get(at + 4) & 0xFF;
                int streamId = buffer.getInt(at + 5) & 0x7FFF_FFFF;
                int end = at + Http2Frames.FRAME_HEADER_BYTES + length;
                int limit = buffer.limit();
                buffer.position(at + Http2Frames.FRAME_HEADER_BYTES).limit(end);
                boolean goOn = frame(type, flags, streamId, buffer);
                buffer.limit(limit).position(end);
                if (!goOn) {
                    return false;
                }
            }
            return true;
        }

        /** One frame, its payload between the buffer's position and limit. */
        private boolean frame(int type, int flags, int streamId, ByteBuffer payload) throws IOException {
            if (continued != null && type != Http2Frames.CONTINUATION) {
                return broken(Http2Frames.PROTOCOL_ERROR, "a header block's CONTINUATION expected, got a frame of type " + type);
            }
            switch (type) {
                case Http2Frames.DATA -> data(flags, streamId, payload);
                case Http2Frames.HEADERS -> {
                    int padding = (flags & Http2Frames.FLAG_PADDED) != 0 ? payload.get() & 0xFF : 0;
                    if ((flags & Http2Frames.FLAG_PRIORITY) != 0) {
                        payload.position(payload.position() + 5);
                    }
                    if (padding > payload.remaining()) {
                        return broken(Http2Frames.PROTOCOL_ERROR, "padding longer than its frame");
                    }
                    payload.limit(payload.limit() - padding);
                    boolean endStream = (flags & Http2Frames.FLAG_END_STREAM) != 0;
                    if ((flags & Http2Frames.FLAG_END_HEADERS) != 0) {
                        return headers(streamId, endStream, payload);
                    }
                    continued = ByteBuffer.allocate(Math.max(2 * payload.remaining(), 1024)).put(payload);
                    continuedStreamId = streamId;
                    continuedEndsStream = endStream;
                }
                case Http2Frames.CONTINUATION -> {
                    if (continued == null || streamId != continuedStreamId) {
                        return broken(Http2Frames.PROTOCOL_ERROR, "a CONTINUATION out of place");
                    }
                    if (continued.remaining() < payload.remaining()) {
                        continued = ByteBuffer.allocate(2 * (continued.position() + payload.remaining())).put(continued.flip());
                    }
                    continued.put(payload);
                    if ((flags & Http2Frames.FLAG_END_HEADERS) != 0) {
                        ByteBuffer block = continued.flip();
                        continued = null;
                        return headers(continuedStreamId, continuedEndsStream, block);
                    }
                }
                case Http2Frames.RST_STREAM -> {
                    int error = payload.getInt();
                    Pending pending = remove(streamId);
                    if (pending != null) {
                        pending.end(0, new IOException("the server reset the stream: " + ErrorCode.toString(error, "error " + error)));
                    }
                }
                case Http2Frames.SETTINGS -> {
                    if ((flags & Http2Frames.FLAG_ACK) == 0) {
                        return settings(payload);
                    }
                }
                case Http2Frames.PING -> {
                    if ((flags & Http2Frames.FLAG_ACK) == 0) {
                        write(Http2Frames.pingAck(payload.getLong()));
                    }
                }
                case Http2Frames.GOAWAY -> goAway(payload.getInt() & 0x7FFF_FFFF, payload.getInt());
                case Http2Frames.WINDOW_UPDATE -> {
                    int bytes = payload.getInt() & 0x7FFF_FFFF;
                    synchronized (this) {
                        if (streamId == 0) {
                            connectionSendWindowBytes += bytes;
                        } else {
                            Pending pending = open.get(streamId);
                            if (pending != null) {
                                pending.sendWindowBytes += bytes;
                            }
                        }
                        queueBodies();
                    }
                    flusher.iterate();
                }
                case Http2Frames.PUSH_PROMISE -> {
                    return broken(Http2Frames.PROTOCOL_ERROR, "a PUSH_PROMISE, though the client disabled push");
                }
                default -> { }   // PRIORITY, and frame types this client does not know: ignored, as RFC 9113 asks
            }
            return true;
        }

        private void data(int flags, int streamId, ByteBuffer payload) {
            int bytes = payload.remaining();   // padding included: it counts against the windows
            connectionUnacknowledgedBytes += bytes;
            if (connectionUnacknowledgedBytes >= WINDOW_BYTES / 2) {
                write(Http2Frames.windowUpdate(0, connectionUnacknowledgedBytes));
                connectionUnacknowledgedBytes = 0;
            }
            Pending pending;
            boolean endStream = (flags & Http2Frames.FLAG_END_STREAM) != 0;
            synchronized (this) {
                pending = endStream ? open.remove(streamId) : open.get(streamId);
            }
            if (pending == null) {
                return;   // a stream reset, or timed out: its bytes only count against the connection's window
            }
            if (endStream) {
                answered(pending);
                return;
            }
            pending.unacknowledgedBytes += bytes;
            if (pending.unacknowledgedBytes >= WINDOW_BYTES / 2) {
                write(Http2Frames.windowUpdate(streamId, pending.unacknowledgedBytes));
                pending.unacknowledgedBytes = 0;
            }
        }

        /** A whole header block: decoded (every one is, to keep the table in step), its stream told its status. */
        private boolean headers(int streamId, boolean endStream, ByteBuffer block) {
            int status;
            try {
                status = statuses.status(block);
            } catch (HpackStatusDecoder.HpackException e) {
                return broken(Http2Frames.COMPRESSION_ERROR, "a response's header block: " + e.getMessage());
            }
            if (status > 0 && status < 200 && !endStream) {
                return true;   // an interim response: the final one follows
            }
            Pending pending;
            synchronized (this) {
                pending = endStream ? open.remove(streamId) : open.get(streamId);
            }
            if (pending != null) {
                if (status > 0) {
                    pending.status = status;
                }
                if (endStream) {
                    answered(pending);
                }
            }
            return true;
        }

        /**
         * The response ended. A server may answer before it read the whole body (RFC 9113, 8.1): the client then stops
         * sending it, and closes its side of the stream with a reset.
         */
        private void answered(Pending pending) {
            if (!serverProcessedAny) {
                serverProcessedAny = true;
            }
            if (body != null) {
                boolean cut;
                synchronized (this) {
                    cut = pending.bodySent < body.length;
                    if (cut) {
                        bodiesWaiting.remove(pending);
                        toWrite.add(Http2Frames.reset(pending.streamId, Http2Frames.CANCEL));
                    }
                }
                if (cut) {
                    flusher.iterate();
                }
            }
            pending.end(pending.status, pending.status == 0 ? new IOException("a response without :status") : null);
        }

        /** The server's SETTINGS: acknowledged; the first makes the connection ready. */
        private boolean settings(ByteBuffer payload) {
            if (payload.remaining() % 6 != 0) {
                return broken(Http2Frames.FRAME_SIZE_ERROR, "a SETTINGS frame of " + payload.remaining() + " bytes");
            }
            Integer serverStreams = null;
            Integer tableBytes = null;
            synchronized (this) {
                while (payload.hasRemaining()) {
                    int setting = payload.getShort() & 0xFFFF;
                    int value = payload.getInt();
                    switch (setting) {
                        case Http2Frames.SETTINGS_MAX_CONCURRENT_STREAMS -> serverStreams = value;
                        case Http2Frames.SETTINGS_HEADER_TABLE_SIZE -> tableBytes = value;
                        case Http2Frames.SETTINGS_MAX_FRAME_SIZE -> {
                            if (value < Http2Frames.DEFAULT_MAX_FRAME_BYTES || value > Http2Frames.LARGEST_MAX_FRAME_BYTES) {
                                return broken(Http2Frames.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE " + value + " outside [16384, 2^24 - 1]");
                            }
                            peerMaxFrameBytes = value;
                        }
                        case Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE -> {
                            if (value < 0) {   // above 2^31 - 1
                                return broken(Http2Frames.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE above 2^31 - 1");
                            }
                            int change = value - peerInitialWindowBytes;
                            open.forEach(pending -> pending.sendWindowBytes += change);
                            peerInitialWindowBytes = value;
                        }
                        default -> { }
                    }
                }
                toWrite.add(Http2Frames.settingsAck());
                queueBodies();
                if (firstBlock == null) {
                    // the server's table holds the request's fields: the first request adds them, later ones index them
                    // (a table smaller than HPACK's initial one is announced at the first block's start, RFC 7541 4.2;
                    // a larger one is not used: the encoder's stays at the initial size)
                    int announced = tableBytes == null ? Http2Frames.DEFAULT_HEADER_TABLE_BYTES : tableBytes;
                    int shrunkTo = announced < Http2Frames.DEFAULT_HEADER_TABLE_BYTES ? announced : -1;
                    boolean indexed = fieldsTableBytes <= Math.min(announced, Http2Frames.DEFAULT_HEADER_TABLE_BYTES);
                    firstBlock = Http2Frames.firstBlock(fields, indexed, shrunkTo);
                    laterBlock = indexed ? Http2Frames.laterBlock(fields) : null;
                } else if (tableBytes != null && laterBlock != null && tableBytes < fieldsTableBytes) {
                    draining = true;   // the server's table shrank below the fields indexed: a new connection starts over
                    if (open.isEmpty()) {
                        toWrite.add(Http2Frames.goAway(0, Http2Frames.NO_ERROR));
                        closeOnceWritten = true;
                    }
                }
            }
            flusher.iterate();
            if (!settled.isDone()) {
                streams = serverStreams == null ? streamsAsked : Math.max(1, Math.min(streamsAsked, serverStreams));
                settled.complete(this);
            } else if (draining) {
                replaceOnce();
            }
            return true;
        }

        /** The server takes no new stream: those above its last go out once more elsewhere, the others end as they come, and it is replaced. */
        private void goAway(int lastStreamId, int error) {
            List<Pending> unprocessed;
            boolean closeNow;
            synchronized (this) {
                if (lastStreamId > 0 && lastStreamId < nextStreamId) {   // names a stream it was sent (not 2^31-1 of a graceful shutdown)
                    serverProcessedAny = true;
                }
                draining = true;
                goneAway = true;
                unprocessed = open.removeIf(pending -> pending.streamId > lastStreamId);
                bodiesWaiting.removeAll(unprocessed);
                closeNow = open.isEmpty();
            }
            IOException cause = new EOFException("the server closed the connection (GOAWAY " + ErrorCode.toString(error, "error " + error) + ")");
            unprocessed.forEach(pending -> pending.refused(cause));   // the server began none of them: safe to send again
            if (joined) {
                replaceOnce();
            }
            if (closeNow) {
                getEndPoint().close(cause);
            }
        }

        /** The server broke the protocol: told so, and the connection closes. */
        private boolean broken(int error, String reason) {
            synchronized (this) {
                toWrite.add(Http2Frames.goAway(0, error));
                closeOnceWritten = true;
            }
            flusher.iterate();
            getEndPoint().close(new IOException("HTTP/2 protocol error from the server: " + reason));
            return false;
        }

        private Pending remove(int streamId) {
            synchronized (this) {
                return open.remove(streamId);
            }
        }

        /** Requests on the wire longer than the timeout fail so, and their streams are reset. */
        @Override
        public void timeOutIfLate(long nowNanos) {
            List<Pending> late;
            synchronized (this) {
                late = open.removeIf(pending -> nowNanos - pending.begunNanos > timeoutNanos);
                late.forEach(pending -> toWrite.add(Http2Frames.reset(pending.streamId, Http2Frames.CANCEL)));
                bodiesWaiting.removeAll(late);
            }
            if (!late.isEmpty()) {
                flusher.iterate();
                TimeoutException timeout = new TimeoutException("no response within " + timeoutMs + " ms");
                late.forEach(pending -> pending.end(0, timeout));
            }
        }

        @Override
        public void onClose(Throwable cause) {
            closed = true;
            super.onClose(cause);
            live.remove(this);
            reopenedAtNanos.remove(this);
            Throwable reason = cause != null ? cause : new EOFException("the connection closed");
            settled.completeExceptionally(reason);
            List<Pending> unanswered;
            synchronized (this) {
                unanswered = open.clear();
                bodiesWaiting.clear();
            }
            unanswered.forEach(pending -> pending.end(0, reason));
            if (joined) {   // idle in the ring too: replaced now, not when a burst next reaches it
                replaceOnce();
            }
        }
    }
}
