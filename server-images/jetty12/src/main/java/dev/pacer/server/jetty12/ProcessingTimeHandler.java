package dev.pacer.server.jetty12;

import java.util.function.LongConsumer;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Records each request's processing time: from {@link Request#getBeginNanoTime()} (the first byte of the request
 * read by the connector) to the success or failure of the request's {@link HttpStream}, i.e. after the last byte of
 * the response was written. Installed as the server's outermost handler, so it covers every mode.
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
                recordNanos.accept(System.nanoTime() - beginNanoTime);
                super.succeeded();
            }

            @Override
            public void failed(Throwable failure) {
                recordNanos.accept(System.nanoTime() - beginNanoTime);
                super.failed(failure);
            }
        });
        return super.handle(request, response, callback);
    }
}
