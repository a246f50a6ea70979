package dev.pacer.engine.protocol;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.RunCollector;

/**
 * The answers to this step's actions, given to the next call of the protocol within the same step: the clients'
 * answers to the posted run, and what collection gave.
 *
 * @param posts      client name → its answer to {@code POST /pacer/v1/run}
 * @param starts     client name → its answer to {@code POST /pacer/v1/run/start}
 * @param collection what {@link Action.Collect} gave, if it ran
 * @param refused    why the platform refused to create a pod or process the run asked for (the API server's answer
 *                   to an invalid pod), if it did: the run cannot start
 * @param windowMoves client name → its answer to {@code POST /pacer/v1/run/window}
 */
public record Outcomes(Map<String, AgentAnswer<LoadRunStatus>> posts, Map<String, AgentAnswer<LoadRunStatus>> starts,
                       Optional<Collection> collection, Optional<String> refused, Map<String, AgentAnswer<LoadRunStatus>> windowMoves) {
    public static final Outcomes NONE = new Outcomes(Map.of(), Map.of(), Optional.empty(), Optional.empty(), Map.of());

    public Outcomes {
        posts = Map.copyOf(posts);
        starts = Map.copyOf(starts);
        windowMoves = Map.copyOf(windowMoves);
    }

    public Outcomes(Map<String, AgentAnswer<LoadRunStatus>> posts, Optional<Collection> collection) {
        this(posts, Map.of(), collection, Optional.empty(), Map.of());
    }

    public boolean isEmpty() {
        return posts.isEmpty() && starts.isEmpty() && collection.isEmpty() && refused.isEmpty() && windowMoves.isEmpty();
    }

    /**
     * What collecting gave: the histograms, infos and client run statuses, or why they could not be had.
     *
     * @param unanswered an agent gave no answer (asking again may help), rather than one outside the contract
     */
    public record Collection(RunCollector.Collected collected, String failure, boolean unanswered) {
        public static Collection of(RunCollector.Collected collected) {
            return new Collection(collected, null, false);
        }

        /** An agent answered, but not as the contract says, or its answer could not be read. */
        public static Collection failed(String why) {
            return new Collection(null, why, false);
        }

        /** A failure as {@link AgentClient#noAnswer} sorts it. */
        public static Collection failed(IOException e) {
            return new Collection(null, e.getMessage(), AgentClient.noAnswer(e));
        }
    }

    /** Gathers the outcomes of a step's actions. */
    public static final class Builder {
        private final Map<String, AgentAnswer<LoadRunStatus>> posts = new LinkedHashMap<>();
        private final Map<String, AgentAnswer<LoadRunStatus>> starts = new LinkedHashMap<>();
        private final Map<String, AgentAnswer<LoadRunStatus>> windowMoves = new LinkedHashMap<>();
        private Collection collection;
        private String refused;

        public void posted(String client, AgentAnswer<LoadRunStatus> answer) {
            posts.put(client, answer);
        }

        public void started(String client, AgentAnswer<LoadRunStatus> answer) {
            starts.put(client, answer);
        }

        public void windowMoved(String client, AgentAnswer<LoadRunStatus> answer) {
            windowMoves.put(client, answer);
        }

        public void collected(Collection result) {
            collection = result;
        }

        public void refused(String why) {
            refused = why;
        }

        public Outcomes build() {
            return new Outcomes(posts, starts, Optional.ofNullable(collection), Optional.ofNullable(refused), windowMoves);
        }
    }
}
