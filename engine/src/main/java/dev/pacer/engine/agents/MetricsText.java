package dev.pacer.engine.agents;

import java.util.Optional;

/** Reads one sample out of a Prometheus text exposition, for progress lines (not a general parser). */
public final class MetricsText {
    private MetricsText() {
    }

    /** The value of the first sample of {@code name} whose label {@code label} equals {@code labelValue}. */
    public static Optional<Double> value(String exposition, String name, String label, String labelValue) {
        String needle = label + "=\"" + labelValue + "\"";
        for (String line : exposition.split("\n")) {
            if (line.startsWith(name + "{") && line.contains(needle)) {
                int space = line.lastIndexOf(' ');
                try {
                    return Optional.of(Double.parseDouble(line.substring(space + 1)));
                } catch (NumberFormatException e) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }
}
