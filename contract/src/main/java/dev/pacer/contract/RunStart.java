package dev.pacer.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The body of {@code POST /pacer/v1/run/start}: when an armed client starts its load. The orchestrator chooses it once
 * every client has said it is armed, so that no client spends its warm-up connecting. Golden file: {@code run-start.json}.
 *
 * @param startAtEpochMs when the load starts, the same instant for every client of the run
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RunStart(long startAtEpochMs) {
}
