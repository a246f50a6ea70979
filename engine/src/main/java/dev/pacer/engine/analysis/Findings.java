package dev.pacer.engine.analysis;

import java.util.ArrayList;
import java.util.List;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;

/**
 * What the figures say about the run, as the analysis finds it: reasons the measurement cannot be trusted, the ones
 * among them that say a client was the limit, criteria not met, and warnings. {@link #judge} turns them into the
 * verdict, in one place.
 */
final class Findings {
    /** The measurement cannot be trusted (the verdict is Invalid). */
    final List<String> invalid = new ArrayList<>();
    /** The Invalid reasons that say a client, not the server, was the limit. */
    final List<String> clientLimits = new ArrayList<>();
    /** A criterion is not met (the verdict is Failed when nothing is invalid). */
    final List<String> failed = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();

    /**
     * {@code Invalid} when anything makes the measurement untrustworthy (a client's limit among them, which
     * {@code clientBound} then says), else {@code Failed} when a criterion is not met, else {@code Passed}.
     */
    void judge(RunResult result) {
        result.warnings.addAll(warnings);
        result.reasons.addAll(invalid);
        result.reasons.addAll(clientLimits);
        result.reasons.addAll(failed);
        boolean untrusted = !invalid.isEmpty() || !clientLimits.isEmpty();
        result.verdict = untrusted ? Verdict.Invalid : !failed.isEmpty() ? Verdict.Failed : Verdict.Passed;
        result.clientBound = clientLimits.isEmpty() ? null : true;
    }
}
