package dev.pacer.agent;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The artificial work every pacer server accepts as query parameters, so that tests and benchmarks can shape the
 * server's processing time without a different image:
 * <ul>
 *   <li>{@code sleepMicros=N}: block N µs, like a call to a slow backend: parked until the last
 *       {@value #SPIN_TAIL_MICROS} µs, which are spun, because a parked thread wakes late by tens of µs on a VM;</li>
 *   <li>{@code spinMicros=N}: burn N µs of CPU;</li>
 *   <li>{@code bytes=N}: answer N bytes instead of the default body.</li>
 * </ul>
 * Unknown parameters are ignored; values are capped (10 s, 16 MiB) so that no request can hold a server forever.
 * A request without a query does the work of {@value #DEFAULT_ENV} (the same syntax; unset: none): set in an image's
 * configuration, it makes a build of a server that is slower by a known amount, the same spec running it.
 */
public record Workload(long sleepMicros, long spinMicros, int bodyBytes) {
    public static final byte[] DEFAULT_BODY = "Hello, World!\n".getBytes(StandardCharsets.US_ASCII);
    /** What {@code GET /} answers: the payload of Chappe's shoot-out, 2 bytes of text/plain. */
    public static final byte[] ROOT_BODY = "ok".getBytes(StandardCharsets.US_ASCII);
    public static final Workload NONE = new Workload(0, 0, -1);
    /** The environment variable holding the work of a request that asks for none. */
    public static final String DEFAULT_ENV = "PACER_DEFAULT_WORKLOAD";
    static final long MAX_MICROS = TimeUnit.SECONDS.toMicros(10);
    static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
    static final long SPIN_TAIL_MICROS = 100;
    /** After the caps it is parsed with: static fields initialize in this order. */
    private static final Workload DEFAULT = parse(System.getenv(DEFAULT_ENV), NONE);

    /** Parses a raw query string ({@code null} or empty: the work of {@value #DEFAULT_ENV}, else none). */
    public static Workload parse(String rawQuery) {
        return parse(rawQuery, DEFAULT);
    }

    /** Parses a raw query string; {@code null} or empty is {@code whenNone}. */
    static Workload parse(String rawQuery, Workload whenNone) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return whenNone;
        }
        long sleep = 0;
        long spin = 0;
        int bytes = -1;
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = pair.substring(0, eq);
            long value = parseNonNegative(pair.substring(eq + 1));
            switch (key) {
                case "sleepMicros" -> sleep = Math.min(value, MAX_MICROS);
                case "spinMicros" -> spin = Math.min(value, MAX_MICROS);
                case "bytes" -> bytes = (int) Math.min(value, MAX_BODY_BYTES);
                default -> {
                }
            }
        }
        return new Workload(sleep, spin, bytes);
    }

    private static long parseNonNegative(String text) {
        try {
            return Math.max(0, Long.parseLong(text));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Sleeps and spins as asked, on the calling thread. */
    public void perform() {
        if (spinMicros > 0) {
            long end = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(spinMicros);
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }
        if (sleepMicros > 0) {
            long end = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(sleepMicros);
            long parkUntil = end - TimeUnit.MICROSECONDS.toNanos(SPIN_TAIL_MICROS);
            for (long left = parkUntil - System.nanoTime(); left > 0; left = parkUntil - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }
    }

    /** The body of a served path: {@code /} the shoot-out's "ok", {@code /plaintext} the default text; or {@code bodyBytes} of filler. */
    public byte[] body(String path) {
        return bodyBytes < 0 && "/".equals(path) ? ROOT_BODY : body();
    }

    /** The response body: the default text, or {@code bodyBytes} of filler. */
    public byte[] body() {
        if (bodyBytes < 0) {
            return DEFAULT_BODY;
        }
        byte[] body = new byte[bodyBytes];
        Arrays.fill(body, (byte) 'x');
        return body;
    }

    /** {@link #isServedPath} for a servlet's path, given as its servlet path and path info (either may be empty/null). */
    public static boolean isServedServletPath(String servletPath, String pathInfo) {
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return isServedPath(path.isEmpty() ? "/" : path);
    }

    /** Whether a path is one that pacer servers answer with 200: {@code /} and {@code /plaintext}. */
    public static boolean isServedPath(String path) {
        return "/".equals(path) || "/plaintext".equals(path);
    }
}
