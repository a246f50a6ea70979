package dev.pacer.agent;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.Deflater;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;

/**
 * A closed period's histogram as HdrHistogram's log writer reads it, its compressed form the library's own (the same
 * bytes: its cookie, the length, the deflated V2 encoding), made with one {@link Deflater} kept for the sampler's life.
 * The library makes a new one per histogram, and with it zlib's window and tables: about 2 ms of CPU per period and
 * series on a 2-core VM, most of a client's per-second bookkeeping. Not thread-safe: its sampler's closing thread uses it.
 */
final class DeflaterKeptEncoding extends EncodableHistogram {
    private final int compressedCookie;
    private Deflater deflater;
    private int level = Integer.MIN_VALUE;
    private ByteBuffer uncompressed;
    private Histogram histogram;

    /** @param like a histogram of the sampler's range and precision, whose encoding's cookie every period's carries */
    DeflaterKeptEncoding(Histogram like) {
        ByteBuffer reference = ByteBuffer.allocate(like.getNeededByteBufferCapacity());
        like.encodeIntoCompressedByteBuffer(reference, Deflater.NO_COMPRESSION);
        this.compressedCookie = reference.getInt(0);
    }

    /** This period's histogram, seen through this encoding until the next. */
    EncodableHistogram of(Histogram period) {
        this.histogram = period;
        return this;
    }

    @Override
    public int getNeededByteBufferCapacity() {
        return histogram.getNeededByteBufferCapacity();
    }

    @Override
    public int encodeIntoCompressedByteBuffer(ByteBuffer target, int compressionLevel) {
        int needed = histogram.getNeededByteBufferCapacity();
        if (uncompressed == null || uncompressed.capacity() < needed) {
            uncompressed = ByteBuffer.allocate(needed).order(ByteOrder.BIG_ENDIAN);
        }
        uncompressed.clear();
        int length = histogram.encodeIntoByteBuffer(uncompressed);
        if (compressionLevel != level) {   // a level set on a Deflater in use applies only after its next deflate
            if (deflater != null) {
                deflater.end();
            }
            deflater = new Deflater(compressionLevel);
            level = compressionLevel;
        }
        deflater.reset();
        int start = target.position();
        target.putInt(compressedCookie);
        target.putInt(0);
        deflater.setInput(uncompressed.array(), 0, length);
        deflater.finish();
        int compressed = deflater.deflate(target.array(), target.arrayOffset() + target.position(), target.remaining());
        target.putInt(start + 4, compressed);
        target.position(target.position() + compressed);
        return compressed + 8;
    }

    @Override
    public long getStartTimeStamp() {
        return histogram.getStartTimeStamp();
    }

    @Override
    public void setStartTimeStamp(long timeStampMsec) {
        histogram.setStartTimeStamp(timeStampMsec);
    }

    @Override
    public long getEndTimeStamp() {
        return histogram.getEndTimeStamp();
    }

    @Override
    public void setEndTimeStamp(long timeStampMsec) {
        histogram.setEndTimeStamp(timeStampMsec);
    }

    @Override
    public String getTag() {
        return histogram.getTag();
    }

    @Override
    public void setTag(String tag) {
        histogram.setTag(tag);
    }

    @Override
    public double getMaxValueAsDouble() {
        return histogram.getMaxValueAsDouble();
    }
}
