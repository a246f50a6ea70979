package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The open-stream table against a map, under the churn of a connection: odd rising ids, some ending late. */
class OpenStreamsTest {
    @Test
    void holdsWhatAMapHoldsThroughPutsAndRemovesInAnyOrder() {
        OpenStreams<String> table = new OpenStreams<>(8);
        Map<Integer, String> expected = new HashMap<>();
        Random random = new Random(11);
        int nextId = 1;
        for (int step = 0; step < 200_000; step++) {
            if (expected.size() < 8 && (expected.isEmpty() || random.nextInt(3) > 0)) {
                table.put(nextId, "s" + nextId);
                expected.put(nextId, "s" + nextId);
                nextId += 2;
            } else {
                List<Integer> open = new ArrayList<>(expected.keySet());
                // mostly the oldest ends first; some linger, so ids far apart share the table
                int id = random.nextInt(10) < 7 ? open.stream().min(Integer::compare).orElseThrow() : open.get(random.nextInt(open.size()));
                assertThat(table.remove(id)).isEqualTo(expected.remove(id));
            }
            assertThat(table.size()).isEqualTo(expected.size());
            if (step % 997 == 0) {
                for (Map.Entry<Integer, String> entry : expected.entrySet()) {
                    assertThat(table.get(entry.getKey())).isEqualTo(entry.getValue());
                }
                assertThat(table.get(nextId)).isNull();
            }
        }
    }

    @Test
    void growsBeyondTheStreamsExpectedAndRemovesBySelection() {
        OpenStreams<Integer> table = new OpenStreams<>(1);
        for (int id = 1; id < 200; id += 2) {
            table.put(id, id);
        }
        assertThat(table.size()).isEqualTo(100);
        assertThat(table.removeIf(id -> id > 149)).hasSize(25).allMatch(id -> id > 149);
        assertThat(table.get(151)).isNull();
        assertThat(table.get(149)).isEqualTo(149);
        assertThat(table.clear()).hasSize(75);
        assertThat(table.isEmpty()).isTrue();
    }
}
