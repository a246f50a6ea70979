package dev.pacer.contract;

import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * {@code GET /pacer/v1/run} of a load generator (and the body of its 202 answer to a POST). An idle agent answers
 * {@code {"state":"idle"}} alone. Golden files: {@code run-status-*.json}.
 *
 * @param state                 where the run is
 * @param targetUrl             the server
 * @param requestedRate         the rate asked for, requests per second
 * @param offeredRate           the rate the schedule offers now: growing during a ramp, else the rate asked for
 *                              (progress only: the analysis takes the rate from the run's plan)
 * @param achievedRate          responses per second inside the measured window so far
 * @param senderThreads         threads pacing the requests
 * @param connections           connections to the server
 * @param scheduled             requests the schedule holds for the whole run
 * @param sent                  requests sent
 * @param resent                times a request went out once more after the server refused it unprocessed (an HTTP/2
 *                              GOAWAY's streams above its last, RFC 9113 §6.8); each request counts once in {@code sent};
 *                              0 over HTTP/1.1, absent from a load generator that does not tell
 * @param unsent                requests the schedule held but that were never sent (known once done)
 * @param stoppedBehindSchedule whether the sender was still behind its schedule when the run ended
 * @param completed             responses received
 * @param completedInWindow     responses received inside the measured window
 * @param errors                failed requests and error statuses
 * @param errorsByKind          {@code timeout}, {@code io}, {@code status_4xx}, {@code status_5xx}
 * @param failureCauses         requests that got no response (the {@code timeout} and {@code io} errors) by cause, the
 *                              exception's type and message, most frequent first; up to 8 causes, the rest under
 *                              {@code other causes}
 * @param statusClasses         responses by status class, {@code 1xx} … {@code 5xx}
 * @param inFlight              requests sent and not answered
 * @param maxInFlight           the most requests in flight at once
 * @param lateRequests          requests whose intended time has come that have not gone to the wire yet: the client's
 *                              backlog now (0 before the load and once it ended)
 * @param sendLagClampedValues  send lags above the histogram's range, recorded at its maximum
 * @param window                the measured window
 * @param startAtEpochMs        the start every client shares (absent until it is given)
 * @param failure               why the load could not be generated, when state is {@code failed}
 * @param windowMovedMs         how much later than planned the window starts ({@code POST /pacer/v1/run/window}); 0 when it did not move
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({"state", "targetUrl", "requestedRate", "offeredRate", "achievedRate", "senderThreads", "connections",
        "scheduled", "sent", "resent", "unsent", "stoppedBehindSchedule", "completed", "completedInWindow", "errors", "errorsByKind", "failureCauses",
        "statusClasses", "inFlight", "maxInFlight", "lateRequests", "sendLagClampedValues", "window", "windowMovedMs", "startAtEpochMs", "failure"})
public record LoadRunStatus(State state, String targetUrl, Integer requestedRate, Double offeredRate, Double achievedRate,
                        Integer senderThreads, Integer connections, Long scheduled, Long sent, Long unsent,
                        Boolean stoppedBehindSchedule, Long completed, Long completedInWindow, Long errors,
                        Map<String, Long> errorsByKind, Map<String, Long> statusClasses, Long inFlight, Long maxInFlight,
                        Long sendLagClampedValues, Window window, Long startAtEpochMs, String failure, Long lateRequests,
                        Long windowMovedMs, Long resent, Map<String, Long> failureCauses) {

    /** The status of an agent that has no run yet. */
    public static LoadRunStatus idle() {
        return new LoadRunStatus(State.IDLE, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null);
    }

    /** The state of a client's one run. */
    public enum State {
        /** No run posted yet. Moves to ARMING, or to WAITING when the run came with its {@code startAt}. */
        IDLE,
        /** Posted without {@code startAt}: connecting and preparing the load. Moves to ARMED or FAILED. */
        ARMING,
        /** Connected and prepared; waiting for {@code POST /pacer/v1/run/start}. Moves to WAITING or FAILED. */
        ARMED,
        /** Armed with a {@code startAt} still to come (a later one may replace it until then). Moves to WARMUP or FAILED. */
        WAITING,
        /** Sending, before the measured window. Moves to MEASURING or FAILED. */
        WARMUP,
        /** Sending inside the measured window, or draining the last responses. Moves to DONE or FAILED. */
        MEASURING,
        /** Every request sent and answered or failed; results stay available. Final. */
        DONE,
        /** The load could not be generated (e.g. cannot connect); see {@code failure}. Final. */
        FAILED;

        @JsonValue
        public String json() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static State of(String json) {
            return State.valueOf(json.toUpperCase(Locale.ROOT));
        }
    }

    /** The measured window, epoch milliseconds. */
    @JsonPropertyOrder({"startEpochMs", "endEpochMs"})
    public record Window(long startEpochMs, long endEpochMs) {
    }

    public double offeredRateOrZero() {
        return offeredRate == null ? 0 : offeredRate;
    }

    public double achievedRateOrZero() {
        return achievedRate == null ? 0 : achievedRate;
    }

    public long errorsOrZero() {
        return errors == null ? 0 : errors;
    }

    public long lateRequestsOrZero() {
        return lateRequests == null ? 0 : lateRequests;
    }

    public long resentOrZero() {
        return resent == null ? 0 : resent;
    }

    public long unsentOrZero() {
        return unsent == null ? 0 : unsent;
    }
}
