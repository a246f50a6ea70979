package dev.pacer.server.netty;

import java.net.InetSocketAddress;
import java.util.Set;

import dev.pacer.agent.Agent;
import dev.pacer.agent.Launch;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.ServerVersion;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;

/**
 * Netty 4.2's HTTP/1.1 codec on its own event loops, as a Netty application is commonly written: epoll where the
 * kernel offers it (else NIO), one event loop per CPU, the request aggregated, the handler run on the event loop that
 * read it ({@link RequestHandler}).
 *
 * <p>What the processing time covers: from the handler's entry, once the codec has parsed and aggregated the request,
 * to the response written to the socket (its write future done). Reading and parsing before that are not in it.
 */
public final class NettyServer {
    private NettyServer() {
    }

    public static void main(String[] args) {
        Launch.run("netty", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, Set.of("epoll", "nio"), Epoll.isAvailable() ? "epoll" : "nio");
        boolean epoll = options.mode().equals("epoll");
        if (epoll) {
            Epoll.ensureAvailability();
        }
        Agent agent = Agent.startServerAgent().describeServer("netty", options.mode(), ServerVersion.of(NettyServer.class));
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(io);
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        boolean record = Agent.recordingEnabled();
        Channel server = new ServerBootstrap().group(boss, workers).channel(channel)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new RequestHandler(agent, record));
                    }
                })
                .bind(options.port()).sync().channel();
        agent.closeOnExit(() -> {
            server.close().syncUninterruptibly();
            workers.shutdownGracefully();
            boss.shutdownGracefully();
        });
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        agent.markReady(port);
        System.out.println("pacer netty (" + options.mode() + ") listening on " + port + ", admin port " + agent.adminPort());
        server.closeFuture().sync();
    }
}
