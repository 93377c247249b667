package io.ashlar.frontend.server;

import io.ashlar.protocol.BackendMessage;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Encodes the few message objects written during startup; sessions write ready-made buffers that pass by. */
@ChannelHandler.Sharable
final class BackendMessageEncoder extends MessageToByteEncoder<BackendMessage> {

    static final BackendMessageEncoder INSTANCE = new BackendMessageEncoder();

    private BackendMessageEncoder() {
        super(BackendMessage.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, BackendMessage message, ByteBuf out) {
        message.encode(out);
    }
}
