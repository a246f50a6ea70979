package dev.pacer.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The body of {@code POST /pacer/v1/run/window}: the measured window starts later than planned, because a client was
 * still behind its schedule when the warm-up was to end. The window keeps its duration. Golden file: {@code run-window.json}.
 *
 * @param startEpochMs the window's new start, the same instant for every client of the run
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RunWindow(long startEpochMs) {
}
