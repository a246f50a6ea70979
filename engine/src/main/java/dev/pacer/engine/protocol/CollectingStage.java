package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RunConditions.FALSE;
import static dev.pacer.engine.protocol.RunConditions.TRUE;
import static dev.pacer.engine.protocol.RunProtocol.POLL;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.Analysis;
import dev.pacer.engine.analysis.HandshakeAnalysis;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.report.ResultDocument;

/** Collecting: collect, analyse, judge (pinning asked for and not obtained makes the verdict Invalid), publish. */
final class CollectingStage extends ProtocolStep {
    CollectingStage(ProtocolStep shared) {
        super(shared);
    }

    Decision collecting(RunPlan plan, Observations seen, Outcomes outcomes) {
        if (outcomes.collection().isEmpty()) {
            Optional<Decision> gone = failOnLostRoles(plan, seen);
            if (gone.isPresent()) {
                return gone.get();
            }
            actions.add(new Action.Collect(status.window.startEpochMs, status.window.endEpochMs));
            return decide(Duration.ZERO);
        }
        Outcomes.Collection collection = outcomes.collection().get();
        if (collection.unanswered()) {
            return unreachable("collecting", collection.failure(), POLL);
        }
        if (collection.failure() != null) {
            return fail(RunConditions.READY, "CollectionFailed", "collecting the histograms failed: " + collection.failure());
        }
        Analysis.Outcome outcome = Analysis.analyze(collection.collected().input(),
                new Analysis.Conduct(status.behindAtWindowStart, Pinning.problems(status.pods, plan.server().measure())));
        RunResult result = outcome.result();
        result.warnings.addAll(Pinning.unverified(status.pods, plan.server().measure()));
        result.warmupExtendedSeconds = status.warmupExtendedSeconds;
        if (plan.tls() != null) {
            result.tls = HandshakeAnalysis.of(collection.collected().rawLogs(), plan.clients().stream().map(RunPlan.ClientRole::name).toList(),
                    plan.samplePeriod().toMillis(), status.window.startEpochMs, status.window.endEpochMs);
        }
        // what ran, by digest, where a status can keep it: each pod's image as the node ran it
        for (BenchmarkRunStatus.PodStatus pod : status.pods) {
            RunCollector.Placed placed = collection.collected().placed().get(pod.role);
            if (placed != null) {
                pod.image = placed.image();
                pod.imageId = placed.imageId();
            }
        }
        ResultDocument document = ResultDocument.of(plan, collection.collected(), outcome, List.of());
        status.result = document.result();
        status.phase = Phase.Succeeded;
        status.completionTime = now.toString();
        String summary = RunProtocol.summary(result);
        String verdictReason = "Verdict" + result.verdict;
        condition(RunConditions.READY, TRUE, verdictReason, summary);
        condition(RunConditions.FINISHED, TRUE, "Succeeded", "the run was carried out; " + summary);
        condition(RunConditions.COMPLETE, TRUE, verdictReason, summary);
        condition(RunConditions.PASSED, result.verdict == Verdict.Passed ? TRUE : FALSE, verdictReason,
                result.verdict == Verdict.Passed ? summary : String.join("; ", result.reasons));
        Map<String, String> files = new LinkedHashMap<>(collection.collected().rawLogs());
        files.putAll(ResultDocument.percentileDistributions(collection.collected()));
        actions.add(new Action.Publish(document, files));
        if (result.verdict == Verdict.Passed) {
            notices.add(Notice.normal("Succeeded", summary));
        } else {
            notices.add(Notice.warning(verdictReason, summary + ": " + String.join("; ", result.reasons)));
        }
        return decide(Duration.ZERO);   // the next step cleans up
    }
}
