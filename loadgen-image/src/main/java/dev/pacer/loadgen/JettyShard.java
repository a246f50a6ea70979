package dev.pacer.loadgen;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.pacer.contract.RunRequest;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.Connection;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpClientTransport;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.RoundRobinConnectionPool;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.mortbay.jetty.load.generator.Resource;

/**
 * A {@link Shard} on a Jetty {@link HttpClient} of its own (one selector), for h2c and h2 (over TLS, chosen by ALPN). What costs per request is kept to
 * what Jetty must do:
 * <ul>
 *   <li>the target URI, the Host header and the request's own headers are built once (pre-encoded);</li>
 *   <li>HTTP/1.1: the connections are opened before the load starts, outside Jetty's pool ({@link Destination#newConnection}),
 *       and each request is sent straight on an idle one ({@link Connection#send}), paired by a {@link ConnectionRing}:
 *       no destination queue, no pool to acquire from and release to, no lookup by origin. A request finding every
 *       connection busy waits in the ring and goes out on the thread that completes the next response;</li>
 *   <li>HTTP/2: one multiplexed connection per shard, through the {@link Destination} resolved once;</li>
 *   <li>responses complete on the selector thread that read them ({@link Invocable.InvocationType#NON_BLOCKING}): no
 *       hand-off to another thread. The completion only records; it never blocks;</li>
 *   <li>no connection is ever opened on the pacing thread: one found closed is replaced in the background.</li>
 * </ul>
 * The request itself is described by the load generator library's {@link Resource} (method, path, headers).
 */
final class JettyShard implements Shard, AutoCloseable {
    private final HttpClient client;
    private final URI target;
    private final String method;
    private final HttpField[] headers;
    private final String body;
    private final long timeoutMs;
    private final Completions completions;
    private final boolean multiplexed;
    private final int connections;
    private Destination destination;
    private ConnectionRing<Connection, Completion> ring;
    private final int maxOutstanding;
    private final AtomicLong finished = new AtomicLong();
    /** Connections reopened in place of closed ones, until their first request: when each was opened. */
    private final Map<Connection, Long> reopenedAtNanos = new ConcurrentHashMap<>();
    private long handedOff;   // the pacing thread's alone
    private final int requestsPerConnection;

    JettyShard(int index, RunRequest spec, Resource resource, int connections, int maxQueued, Completions completions) {
        URI given = URI.create(spec.targetUrl());
        String serverName = spec.tls() == null ? null : spec.tls().serverName();
        // with a server name, requests name it (Host, SNI, the certificate's check) and go to the target's address
        URI base = serverName == null ? given : URI.create(given.getScheme() + "://" + serverName + ":" + given.getPort() + "/");
        this.target = base.resolve(resource.getPath());
        this.method = resource.getMethod();
        this.body = spec.request() == null || spec.request().body() == null || spec.request().body().isEmpty() ? null : spec.request().body();
        this.timeoutMs = spec.effectiveRequestTimeoutMs();
        this.completions = completions;
        this.maxOutstanding = maxQueued;
        this.multiplexed = RunRequest.H2C.equals(spec.httpVersion()) || RunRequest.H2.equals(spec.httpVersion());
        this.connections = connections;
        this.requestsPerConnection = spec.tls() == null ? 0 : spec.tls().requestsPerConnection();
        HttpFields resourceHeaders = resource.getRequestHeaders();
        this.headers = new HttpField[resourceHeaders.size() + 1];
        int port = base.getPort() < 0 ? (spec.https() ? 443 : 80) : base.getPort();
        headers[0] = new PreEncodedHttpField(HttpHeader.HOST, base.getHost() + ":" + port);
        int h = 1;
        for (HttpField field : resourceHeaders) {
            headers[h++] = new PreEncodedHttpField(field.getName(), field.getValue());
        }
        QueuedThreadPool threads = new QueuedThreadPool(8, 2);
        threads.setName("pacer-shard-" + index);
        threads.setReservedThreads(0);
        ClientConnector connector = new ClientConnector();
        connector.setSelectors(1);
        connector.setExecutor(threads);
        SslHandshakeListener handshakes = null;
        if (spec.https()) {
            ClientTls.Factory ssl = ClientTls.contextFactory(spec.tls());
            connector.setSslContextFactory(ssl);
            handshakes = ssl.handshakeTimer(completions::handshake);
        }
        HttpClientTransport transport;
        if (multiplexed) {
            HTTP2Client http2 = new HTTP2Client(connector);
            if (handshakes != null) {
                http2.addBean(handshakes);   // h2's TLS connections take the handshake listeners of the HTTP2Client
            }
            transport = new HttpClientTransportOverHTTP2(http2);
        } else {
            HttpClientTransportOverHTTP http1 = new HttpClientTransportOverHTTP(connector);
            http1.setConnectionPoolFactory(d -> new RoundRobinConnectionPool(d, connections));
            transport = http1;
        }
        transport.setInvocationType(Invocable.InvocationType.NON_BLOCKING);
        client = new HttpClient(transport);
        if (serverName != null) {
            String targetHost = given.getHost();
            client.setSocketAddressResolver((host, toPort, context, promise) ->
                    promise.succeeded(List.of(ClientTls.address(targetHost, toPort, spec.tls()))));
        }
        if (handshakes != null) {
            client.addBean(handshakes);   // told once per handshake, whichever holder's listeners see it
        }
        client.setExecutor(threads);
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        client.setUserAgentField(null);
        client.setFollowRedirects(false);
        client.setStrictEventOrdering(false);   // a connection is free before its response's completion is told: sendable from it
        client.setMaxConnectionsPerDestination(connections);
        client.setMaxRequestsQueuedPerDestination(maxQueued);
    }

    @Override
    public void closeInBackground() {
        Thread.ofPlatform().daemon().name("pacer-shard-stop").start(() -> {
            try {
                client.stop();
            } catch (Exception e) {
                // the run is over; nothing waits for this
            }
        });
    }

    @Override
    public void connect(long timeoutMs) throws Exception {
        client.start();
        client.getContentDecoderFactories().clear();
        client.getProtocolHandlers().clear();
        destination = client.resolveDestination(client.newRequest(target));
        if (requestsPerConnection > 0 && destination.getConnectionPool() instanceof AbstractConnectionPool pool) {
            pool.setMaxUsage(requestsPerConnection);   // a connection retired after that many streams; the pool opens another
        }
        if (multiplexed) {
            destination.getConnectionPool().preCreateConnections(client.getMaxConnectionsPerDestination()).get(timeoutMs, TimeUnit.MILLISECONDS);
            return;
        }
        ring = new ConnectionRing<>(connection -> !connection.isClosed(), closed -> reopen(), this::dispatch);
        List<CompletableFuture<Connection>> opening = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Promise.Completable<Connection> opened = new Promise.Completable<>();
            destination.newConnection(opened);
            opening.add(opened);
        }
        CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new)).get(timeoutMs, TimeUnit.MILLISECONDS);
        opening.forEach(opened -> ring.release(opened.join()));
    }

    /**
     * Opens a connection in place of one found closed (the server's idle timeout, a failed request), in the background.
     * When it cannot be opened, the requests waiting for one fail with the reason, as each would on a connect of its
     * own (a server gone shows as errors, not as a client behind its schedule), and it is tried again shortly.
     */
    private void reopen() {
        if (!client.isRunning()) {
            return;
        }
        destination.newConnection(Promise.from(opened -> {
            reopenedAtNanos.put(opened, System.nanoTime());
            ring.release(opened);
        }, failure -> {
            ring.failWaiting(waiting -> waiting.failed(failure));
            if (client.isRunning()) {
                client.getScheduler().schedule(this::reopen, REOPEN_DELAY_MS, TimeUnit.MILLISECONDS);
            }
        }));
    }

    /** Waits between attempts to reopen a connection the server refuses. */
    static final long REOPEN_DELAY_MS = 100;

    /** Jetty would refuse a request beyond its queue too, but at the cost of a scan of it, which an overloaded client cannot afford. */
    @Override
    public boolean trySend(long intendedNanos, long handedNanos) {
        if (handedOff - finished.get() >= maxOutstanding) {
            return false;
        }
        handedOff++;
        send(intendedNanos, handedNanos);
        return true;
    }

    private void send(long intendedNanos, long handedNanos) {
        Completion completion = new Completion(intendedNanos, handedNanos);
        if (multiplexed) {
            completions.sendLag(handedNanos - intendedNanos);
            destination.send(newRequest().onRequestBegin(completion), completion);
        } else {
            ring.offer(completion);
        }
    }

    /** On the pacing thread, or on the thread that completed the previous response on that connection. */
    private void dispatch(Connection connection, Completion completion) {
        completion.connection = connection;
        completion.begin();
        Long reopenedAt = reopenedAtNanos.isEmpty() ? null : reopenedAtNanos.remove(connection);
        completions.sendLag(Shard.sendLagNanos(completion.intendedNanos, completion.handedNanos, completion.begunNanos, reopenedAt));
        connection.send(newRequest(), completion);
    }

    private Request newRequest() {
        Request request = client.newRequest(target).method(method).timeout(timeoutMs, TimeUnit.MILLISECONDS)
                .headers(this::addHeaders);
        if (body != null) {
            request.body(new StringRequestContent(body));
        }
        return request;
    }

    private void addHeaders(HttpFields.Mutable fields) {
        for (HttpField field : headers) {
            fields.put(field);
        }
    }

    @Override
    public void close() throws Exception {
        client.stop();
    }

    /** The one object a request costs beyond Jetty's own: its intended time, when it went to the wire, and on what. */
    private final class Completion implements Response.CompleteListener, Request.BeginListener {
        private final long intendedNanos;
        private final long handedNanos;
        private long begunNanos;
        private Connection connection;

        Completion(long intendedNanos, long handedNanos) {
            this.intendedNanos = intendedNanos;
            this.handedNanos = handedNanos;
        }

        @Override
        public void onBegin(Request request) {
            begin();
        }

        void begin() {
            begunNanos = System.nanoTime();
            completions.begun();
        }

        /** It never went to the wire: no connection could be opened for it. */
        void failed(Throwable failure) {
            completions.sendLag(handedNanos - intendedNanos);
            finished.incrementAndGet();
            completions.completed(0, failure, intendedNanos, 0);
        }

        @Override
        public void onComplete(Result result) {
            // the connection is free already (no strict event ordering): first give it back, so that a request waiting
            // goes out now, then record
            if (connection != null) {
                ring.release(connection);
            }
            finished.incrementAndGet();
            boolean answered = result.getResponse() != null && result.getResponse().getStatus() > 0 && result.getResponseFailure() == null;
            completions.completed(answered ? result.getResponse().getStatus() : 0, answered ? null : result.getFailure(), intendedNanos, begunNanos);
        }
    }

    /** The request every shard sends, as the load generator library describes one. */
    static Resource resource(RunRequest spec) {
        Resource resource = new Resource(spec.path()).method(spec.method());
        if (spec.request() != null && spec.request().headers() != null) {
            for (Map.Entry<String, String> header : spec.request().headers().entrySet()) {
                resource.requestHeader(header.getKey(), header.getValue());
            }
        }
        return resource;
    }
}
