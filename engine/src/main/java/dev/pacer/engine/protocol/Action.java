package dev.pacer.engine.protocol;

import java.util.List;
import java.util.Map;

import dev.pacer.contract.RunRequest;
import dev.pacer.engine.report.ResultDocument;

/** What the protocol asks an orchestrator to do. Each is idempotent: a repeated one does no harm. */
public sealed interface Action {

    /** Create the server (Kubernetes: its headless Service and pod; locally: its process). */
    record CreateServer() implements Action {
    }

    /**
     * Attach the kernel probe to the ready server ({@code measure: probe/both}): on its node, watching its address and
     * port (Kubernetes: a probe pod; locally the probe started with the server, nothing to do).
     */
    record CreateProbe(String serverNode, String serverAddress, int serverPort) implements Action {
    }

    /** Create these clients (those not there yet). */
    record CreateClients(List<String> names) implements Action {
    }

    /** {@code POST /pacer/v1/run} to a client, without {@code startAt}: it arms; its answer comes back as an outcome. */
    record PostRun(String client, RunRequest request) implements Action {
    }

    /** {@code POST /pacer/v1/run/start} to an armed client; its answer comes back as an outcome. */
    record PostStart(String client, long startAtEpochMs) implements Action {
    }

    /**
     * {@code POST /pacer/v1/run/window} to a client under way: the measured window starts later, a client having been
     * behind its schedule as the warm-up ended; its answer comes back as an outcome.
     */
    record MoveWindow(String client, long windowStartEpochMs) implements Action {
    }

    /** Fetch every histogram log, info and final client run status; what was collected, or why not, comes back as an outcome. */
    record Collect(long windowStartEpochMs, long windowEndEpochMs) implements Action {
    }

    /**
     * Keep the result: write the results directory (locally), store the artifacts.
     *
     * @param files file name → text: every raw interval log ({@code .hlog}) and the window's percentile distributions
     *              ({@code .hgrm})
     */
    record Publish(ResultDocument document, Map<String, String> files) implements Action {
    }

    /** Delete the run's pods (stop its processes). */
    record CleanUp(String why) implements Action {
    }

    /**
     * Stop the run's roles and keep what they leave: their processes end, their logs stay readable, and their CPUs go
     * back for the next run (Kubernetes: the kept pods are stopped, not deleted; locally: the processes are stopped,
     * their logs being files already).
     */
    record StopRoles(String why) implements Action {
    }

    /** The run's time to live after finishing has passed: the run goes (Kubernetes: the resource is deleted; locally, nothing is kept to delete). */
    record ExpireRun(String why) implements Action {
    }
}
