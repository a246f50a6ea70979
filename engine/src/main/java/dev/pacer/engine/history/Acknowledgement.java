package dev.pacer.engine.history;

/**
 * A change someone has looked at: it stays in the history, marked, and no longer alerts. There is no global mute: a
 * change is acknowledged by its series, figure and the first run after it.
 *
 * @param series   the series' id
 * @param figure   the figure that changed
 * @param firstRun the first run after the change
 * @param note     why, as its author said it (may be null)
 */
public record Acknowledgement(String series, Figure figure, String firstRun, String note) {
    /** Whether this acknowledges that change. */
    public boolean covers(SeriesHistory.Change change) {
        return series.equals(change.series()) && figure == change.figure() && firstRun.equals(change.firstRun());
    }
}
