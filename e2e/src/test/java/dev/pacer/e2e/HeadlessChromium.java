package dev.pacer.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Debian's chromium, headless, as the project's scripts install it (scripts/install-test-deps.sh). */
final class HeadlessChromium {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private HeadlessChromium() {
    }

    /** The DOM after the page's scripts ran. */
    static String dumpDom(Path page) throws IOException, InterruptedException {
        return run(page, "--dump-dom");
    }

    /** A PNG screenshot of the page. */
    static void screenshot(Path page, Path png, int width, int height) throws IOException, InterruptedException {
        run(page, "--screenshot=" + png, "--window-size=" + width + "," + height);
    }

    private static String run(Path page, String... extra) throws IOException, InterruptedException {
        if (!Files.isExecutable(CHROMIUM)) {
            throw new IllegalStateException("chromium is not installed: run scripts/install-test-deps.sh (make test does)");
        }
        Path profile = Files.createTempDirectory("pacer-chromium");
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile));
        command.addAll(List.of(extra));
        command.add(page.toUri().toString());
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("chromium did not finish in 60 s");
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
