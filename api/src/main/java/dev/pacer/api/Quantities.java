package dev.pacer.api;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsing of the spec's human quantities. Each method throws {@link IllegalArgumentException} with a message that
 * says what is allowed; callers prefix the field.
 * <ul>
 *   <li>rates: {@code 500}, {@code 60k}, {@code 1.5M} (requests per second);</li>
 *   <li>durations: {@code 500ms}, {@code 60s}, {@code 5m}, {@code 1h}, or combinations such as {@code 1m30s};</li>
 *   <li>ratios: {@code 1%}, {@code 0.01};</li>
 *   <li>CPUs: {@code 2}, {@code 500m}, {@code 1.5}.</li>
 * </ul>
 */
public final class Quantities {
    private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)([kM]?)");
    private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    private static final BigDecimal MAX_RATE_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

    private Quantities() {
    }

    public static long parseRatePerSecond(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("is required: requests per second such as 500, 60k or 1.5M");
        }
        Matcher m = RATE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a rate: use requests per second such as 500, 60k or 1.5M (> 0)");
        }
        BigDecimal value = new BigDecimal(m.group(1));
        switch (m.group(2)) {
            case "k" -> value = value.movePointRight(3);
            case "M" -> value = value.movePointRight(6);
            default -> {
            }
        }
        if (value.signum() <= 0) {
            throw new IllegalArgumentException("must be > 0, was '" + text + "'");
        }
        if (value.stripTrailingZeros().scale() > 0) {
            throw new IllegalArgumentException("must be a whole number of requests per second, was '" + text + "'");
        }
        if (value.compareTo(MAX_RATE_PER_SECOND) >= 0) {
            throw new IllegalArgumentException("must be below 1000M requests per second, was '" + text + "'");
        }
        if (!text.trim().matches(BenchmarkRunSpec.RATE_PATTERN)) {    // the schema's form, which admission applies
            throw new IllegalArgumentException("'" + text + "' is not written as the schema asks: a whole number such as 500, "
                    + "or k with at most 3 decimals (1.5k), or M with at most 6 (1.5M)");
        }
        return value.longValueExact();
    }

    /** 60000 → 60k, 1500000 → 1.5M, 500 → 500. */
    public static String formatRate(long perSecond) {
        if (perSecond >= 1_000_000 && perSecond % 100_000 == 0) {
            return BigDecimal.valueOf(perSecond).movePointLeft(6).stripTrailingZeros().toPlainString() + "M";
        }
        if (perSecond >= 1_000 && perSecond % 100 == 0) {
            return BigDecimal.valueOf(perSecond).movePointLeft(3).stripTrailingZeros().toPlainString() + "k";
        }
        return Long.toString(perSecond);
    }

    public static Duration parseDuration(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("is required: a duration such as 500ms, 60s, 5m or 1h");
        }
        String trimmed = text.trim();
        Matcher m = DURATION_PART.matcher(trimmed);
        int position = 0;
        Duration total = Duration.ZERO;
        while (m.find() && m.start() == position) {
            BigDecimal amount = new BigDecimal(m.group(1));
            BigDecimal millis = switch (m.group(2)) {
                case "ms" -> amount;
                case "s" -> amount.movePointRight(3);
                case "m" -> amount.multiply(BigDecimal.valueOf(60_000));
                default -> amount.multiply(BigDecimal.valueOf(3_600_000));
            };
            total = total.plusNanos(millis.movePointRight(6).longValue());   // 1.5ms is 1.5 ms, as in the CRD's CEL rules
            position = m.end();
        }
        if (position == 0 || position != trimmed.length()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: use e.g. 500ms, 60s, 5m, 1h or 1m30s");
        }
        return total;
    }

    /** A ratio: {@code 1%} → 0.01, {@code 0.01} → 0.01; must lie in [0, 1]. */
    public static double parseRatio(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("is required: a ratio such as 1% or 0.01");
        }
        String trimmed = text.trim();
        double value;
        try {
            value = trimmed.endsWith("%") ? Double.parseDouble(trimmed.substring(0, trimmed.length() - 1)) / 100
                    : Double.parseDouble(trimmed);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a ratio: use e.g. 1% or 0.01");
        }
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException("must lie between 0 and 100%, was '" + text + "'");
        }
        return value;
    }

    /** CPUs in millicores: {@code 2} → 2000, {@code 500m} → 500, {@code 1.5} → 1500. */
    public static long parseCpuMillis(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("is required: CPUs such as 2, 1.5 or 500m");
        }
        String trimmed = text.trim();
        try {
            BigDecimal millis = trimmed.endsWith("m") ? new BigDecimal(trimmed.substring(0, trimmed.length() - 1))
                    : new BigDecimal(trimmed).movePointRight(3);
            if (millis.signum() < 0) {
                throw new IllegalArgumentException("must be >= 0, was '" + text + "'");
            }
            return millis.longValue();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a CPU quantity: use e.g. 2, 1.5 or 500m");
        }
    }
}
