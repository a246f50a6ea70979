package dev.pacer.server.netty;

import dev.pacer.agent.Agent;
import dev.pacer.agent.Workload;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;

/** Answers pacer's paths with the workload of the query, on the event loop; records from entry to the write done. */
final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final Agent agent;
    private final boolean record;

    RequestHandler(Agent agent, boolean record) {
        this.agent = agent;
        this.record = record;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        long beginNanoTime = System.nanoTime();
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        FullHttpResponse response;
        if (Workload.isServedPath(uri.path())) {
            int query = request.uri().indexOf('?');
            Workload workload = Workload.parse(query < 0 ? null : request.uri().substring(query + 1));
            workload.perform();
            response = new DefaultFullHttpResponse(request.protocolVersion(), HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(workload.body(uri.path())));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN);
        } else {
            response = new DefaultFullHttpResponse(request.protocolVersion(), HttpResponseStatus.NOT_FOUND, Unpooled.EMPTY_BUFFER);
        }
        HttpUtil.setContentLength(response, response.content().readableBytes());
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        var written = ctx.writeAndFlush(response);
        if (record) {
            written.addListener(f -> agent.recordNanos(System.nanoTime() - beginNanoTime));
        }
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
