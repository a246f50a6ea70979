package dev.pacer.operator;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Phase;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.operator.dependent.PodFactory;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;

/**
 * Drives a BenchmarkRun through its phases ({@link Phase}); each step reads the status alone, so an operator restart
 * resumes where it was. This first part covers admission and the server pod:
 * <ul>
 *   <li>Pending: the spec is checked with the same rules as {@code pacer run} (the API server's schema cannot express
 *       them all); a refused spec fails the run with condition {@value RunConditions#SPEC_VALID}=False naming each field;
 *       otherwise the server pod is created and the run moves to Starting;</li>
 *   <li>Starting: the server pod must exist (a deleted pod fails the run, naming it); then the run waits —
 *       the clients, the barrier, collection and analysis are the next part of this work;</li>
 *   <li>any phase but the final ones: {@code spec.timeout} after creation fails the run.</li>
 * </ul>
 */
@ControllerConfiguration
public class BenchmarkRunReconciler implements Reconciler<BenchmarkRun> {
    static final Duration STARTING_RECHECK = Duration.ofSeconds(2);

    @Override
    public UpdateControl<BenchmarkRun> reconcile(BenchmarkRun run, Context<BenchmarkRun> context) {
        BenchmarkRunStatus status = run.getStatus() == null ? new BenchmarkRunStatus() : run.getStatus();
        Phase phase = status.phase == null ? Phase.Pending : status.phase;
        if (phase.isFinal()) {
            return UpdateControl.noUpdate();
        }
        RunPlan plan;
        try {
            plan = RunPlanner.plan(run);
        } catch (RunPlanner.InvalidPlanException e) {
            return patch(run, fail(run, status, RunConditions.SPEC_VALID, "InvalidSpec", describe(e.problems())));
        }
        status.load = plan.load();
        if (timedOut(run, plan)) {
            return patch(run, fail(run, status, RunConditions.READY, "Timeout",
                    "spec.timeout " + plan.timeout().toSeconds() + " s passed in phase " + phase));
        }
        return switch (phase) {
            case Pending -> {
                RunConditions.set(status.conditions, RunConditions.SPEC_VALID, "True", "Accepted", "the spec is valid", generation(run));
                Pod server = PodFactory.serverPod(run, plan);
                if (context.getClient().pods().inNamespace(namespace(run)).withName(server.getMetadata().getName()).get() == null) {
                    context.getClient().pods().inNamespace(namespace(run)).resource(server).create();
                }
                status.phase = Phase.Starting;
                RunConditions.set(status.conditions, RunConditions.READY, "Unknown", "Starting",
                        "server pod " + server.getMetadata().getName() + " created", generation(run));
                yield patch(run, status).rescheduleAfter(STARTING_RECHECK);
            }
            case Starting -> {
                String serverPod = PodFactory.serverPodName(run);
                if (context.getClient().pods().inNamespace(namespace(run)).withName(serverPod).get() == null) {
                    yield patch(run, fail(run, status, RunConditions.READY, "PodDeleted", "server pod " + serverPod + " was deleted"));
                }
                yield UpdateControl.<BenchmarkRun>noUpdate().rescheduleAfter(STARTING_RECHECK);
            }
            default -> UpdateControl.noUpdate();
        };
    }

    @Override
    public ErrorStatusUpdateControl<BenchmarkRun> updateErrorStatus(BenchmarkRun run, Context<BenchmarkRun> context, Exception e) {
        BenchmarkRunStatus status = run.getStatus() == null ? new BenchmarkRunStatus() : run.getStatus();
        RunConditions.set(status.conditions, RunConditions.READY, "Unknown", e.getClass().getSimpleName(),
                String.valueOf(e.getMessage()), generation(run));
        return ErrorStatusUpdateControl.patchStatus(forStatus(run, status));
    }

    private static BenchmarkRunStatus fail(BenchmarkRun run, BenchmarkRunStatus status, String type, String reason, String message) {
        status.phase = Phase.Failed;
        RunConditions.set(status.conditions, type, "False", reason, message, generation(run));
        if (!RunConditions.READY.equals(type)) {
            RunConditions.set(status.conditions, RunConditions.READY, "False", reason, message, generation(run));
        }
        return status;
    }

    private static boolean timedOut(BenchmarkRun run, RunPlan plan) {
        String created = run.getMetadata().getCreationTimestamp();
        return created != null && Instant.parse(created).plus(plan.timeout()).isBefore(Instant.now());
    }

    static String describe(List<FieldProblem> problems) {
        return String.join("; ", problems.stream().map(FieldProblem::toString).toList());
    }

    private static UpdateControl<BenchmarkRun> patch(BenchmarkRun run, BenchmarkRunStatus status) {
        return UpdateControl.patchStatus(forStatus(run, status));
    }

    /** A fresh object with only name, namespace and status: the status patch touches nothing else. */
    private static BenchmarkRun forStatus(BenchmarkRun run, BenchmarkRunStatus status) {
        status.observedGeneration = generation(run);
        BenchmarkRun fresh = new BenchmarkRun();
        fresh.setMetadata(new ObjectMetaBuilder().withName(run.getMetadata().getName()).withNamespace(namespace(run)).build());
        fresh.setStatus(status);
        return fresh;
    }

    private static String namespace(BenchmarkRun run) {
        return run.getMetadata().getNamespace();
    }

    private static Long generation(BenchmarkRun run) {
        return run.getMetadata().getGeneration();
    }
}
