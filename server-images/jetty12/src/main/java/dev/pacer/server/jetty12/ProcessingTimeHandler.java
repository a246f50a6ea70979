package dev.pacer.server.jetty12;

import java.util.function.LongConsumer;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Records each request's processing time: from {@link Request#getBeginNanoTime()} (the first byte of the request
 * read by the connector) until the request's {@link HttpStream} has handled its own success or failure, i.e. after the
 * last byte of the response was written and the stream completed. That is where Jetty's own latency recording handler,
 * which jetty-perf measures with, ends it. Installed as the server's outermost handler, so it covers every mode.
 */
public final class ProcessingTimeHandler extends Handler.Wrapper {
    private final LongConsumer recordNanos;

    public ProcessingTimeHandler(Handler handler, LongConsumer recordNanos) {
        super(handler);
        this.recordNanos = recordNanos;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        long beginNanoTime = request.getBeginNanoTime();
        request.addHttpStreamWrapper(stream -> new HttpStream.Wrapper(stream) {
            @Override
            public void succeeded() {
                super.succeeded();
                recordNanos.accept(System.nanoTime() - beginNanoTime);
            }

            @Override
            public void failed(Throwable failure) {
                super.failed(failure);
                recordNanos.accept(System.nanoTime() - beginNanoTime);
            }
        });
        return super.handle(request, response, callback);
    }
}
