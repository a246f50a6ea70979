package dev.pacer.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;

/** Debian's chromium, headless, as the project's scripts install it (scripts/install-test-deps.sh). */
final class HeadlessChromium {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private HeadlessChromium() {
    }

    /** The DOM after the page's scripts ran. */
    static String dumpDom(Path page) throws IOException, InterruptedException {
        return run(page, "--dump-dom");
    }

    /**
     * What each chart of a report drew, read by a page of the test's own that frames the report (so no test code is in
     * users' reports): chart id → series pixels on its canvas (saturated colours, not the grey axes and grid) and
     * legend entries (the x series included).
     */
    static Map<String, Drawn> plotsDrawn(Path report) throws IOException, InterruptedException {
        Path frame = Files.createTempFile(report.getParent(), "frame-", ".html");
        Files.writeString(frame, """
                <!DOCTYPE html><html><body><iframe id="report" src="REPORT" style="width:1200px;height:9000px"></iframe><pre id="drawn"></pre>
                <script>
                document.getElementById('report').addEventListener('load', function () {
                  setTimeout(function () {
                    var doc = document.getElementById('report').contentDocument, out = {};
                    doc.querySelectorAll('div.plot').forEach(function (plot) {
                      var canvas = plot.querySelector('canvas'), colored = 0;
                      if (canvas) {
                        var d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
                        for (var i = 0; i < d.length; i += 4) {
                          var max = Math.max(d[i], d[i + 1], d[i + 2]), min = Math.min(d[i], d[i + 1], d[i + 2]);
                          if (d[i + 3] > 0 && max - min > 60) { colored++; }
                        }
                      }
                      out[plot.id] = [colored, plot.querySelectorAll('.u-legend .u-series').length];
                    });
                    document.getElementById('drawn').textContent = JSON.stringify(out);
                  }, 500);
                });
                </script></body></html>
                """.replace("REPORT", report.getFileName().toString()));
        try {
            String dom = run(frame, "--allow-file-access-from-files", "--virtual-time-budget=15000", "--dump-dom");
            Matcher json = Pattern.compile("<pre id=\"drawn\">(.*?)</pre>", Pattern.DOTALL).matcher(dom);
            if (!json.find() || json.group(1).isBlank()) {
                throw new IOException("the frame read nothing of " + report + ":\n" + dom.substring(0, Math.min(2000, dom.length())));
            }
            Map<String, Drawn> drawn = new LinkedHashMap<>();
            new ObjectMapper().readTree(json.group(1)).fields()
                    .forEachRemaining(e -> drawn.put(e.getKey(), new Drawn(e.getValue().get(0).asInt(), e.getValue().get(1).asInt())));
            return drawn;
        } finally {
            Files.deleteIfExists(frame);
        }
    }

    /** A chart as the browser drew it: pixels of its series, and entries in its legend. */
    record Drawn(int seriesPixels, int legendEntries) {
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
