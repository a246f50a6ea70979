package dev.pacer.loadgen;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A connection's open streams by id: an open-addressed table sized to the streams it may carry at once, so a lookup is
 * an index and a compare, with no boxing and no node per stream. A client's stream ids are odd and rising, so those open
 * at once mostly fall in distinct slots. Not thread-safe: its connection's lock guards it.
 *
 * @param <S> what a stream carries
 */
final class OpenStreams<S> {
    private int[] ids;
    private Object[] streams;
    private int size;

    OpenStreams(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected) * 2 - 1) << 1;
        ids = new int[capacity];
        streams = new Object[capacity];
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void put(int id, S stream) {
        if (2 * (size + 1) > ids.length) {
            grow();
        }
        int slot = find(id);
        if (streams[slot] == null) {
            size++;
        }
        ids[slot] = id;
        streams[slot] = stream;
    }

    @SuppressWarnings("unchecked")
    S get(int id) {
        return (S) streams[find(id)];
    }

    /** Removes the stream with that id, and returns it (null when none). */
    @SuppressWarnings("unchecked")
    S remove(int id) {
        int slot = find(id);
        S removed = (S) streams[slot];
        if (removed == null) {
            return null;
        }
        streams[slot] = null;
        size--;
        // shifts back the entries after it in the probe sequence, so none is left behind a hole
        int mask = ids.length - 1;
        int hole = slot;
        for (int next = (slot + 1) & mask; streams[next] != null; next = (next + 1) & mask) {
            int home = home(ids[next]);
            boolean movable = hole <= next ? (home <= hole || home > next) : (home <= hole && home > next);
            if (movable) {
                ids[hole] = ids[next];
                streams[hole] = streams[next];
                streams[next] = null;
                hole = next;
            }
        }
        return removed;
    }

    /** Removes those the test accepts, and returns them. */
    @SuppressWarnings("unchecked")
    List<S> removeIf(Predicate<? super S> test) {
        List<Integer> matched = new ArrayList<>();
        for (int slot = 0; slot < streams.length; slot++) {
            if (streams[slot] != null && test.test((S) streams[slot])) {
                matched.add(ids[slot]);
            }
        }
        List<S> removed = new ArrayList<>(matched.size());
        for (int id : matched) {
            removed.add(remove(id));
        }
        return removed;
    }

    /** Removes every stream, and returns them. */
    List<S> clear() {
        return removeIf(stream -> true);
    }

    /** Calls the action on each stream. */
    @SuppressWarnings("unchecked")
    void forEach(java.util.function.Consumer<? super S> action) {
        for (Object stream : streams) {
            if (stream != null) {
                action.accept((S) stream);
            }
        }
    }

    private int home(int id) {
        return (id >>> 1) & (ids.length - 1);
    }

    /** The slot holding the id, or the empty slot where it would go. */
    private int find(int id) {
        int mask = ids.length - 1;
        int slot = home(id);
        while (streams[slot] != null && ids[slot] != id) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private void grow() {
        int[] oldIds = ids;
        Object[] oldStreams = streams;
        ids = new int[oldIds.length * 2];
        streams = new Object[oldStreams.length * 2];
        size = 0;
        for (int slot = 0; slot < oldIds.length; slot++) {
            if (oldStreams[slot] != null) {
                @SuppressWarnings("unchecked")
                S stream = (S) oldStreams[slot];
                put(oldIds[slot], stream);
            }
        }
    }
}
