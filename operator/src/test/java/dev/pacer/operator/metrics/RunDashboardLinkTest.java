package dev.pacer.operator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class RunDashboardLinkTest {
    @Test
    void selectsTheRunAndSpansItsLoadAndWindowWithTheResults() {
        String link = RunDashboardLink.of(URI.create("https://grafana.example.com/sub"), "bench", "jetty12-4x60k",
                1_700_000_000_000L, 1_700_000_090_000L);
        assertEquals("https://grafana.example.com/sub/d/pacer-run/run?var-namespace=bench&var-run=jetty12-4x60k"
                + "&from=1699999990000&to=1700000150000", link);
    }

    @Test
    void pointsAtTheRunDashboardAndItsVariables() throws Exception {
        // the link is only as good as the dashboard's uid and variable names
        JsonNode dashboard = new ObjectMapper().readTree(Files.readString(Path.of("../dashboards/pacer-run.json")));
        assertTrue(RunDashboardLink.PATH.startsWith("/d/" + dashboard.get("uid").asText() + "/"), RunDashboardLink.PATH);
        java.util.List<String> variables = new java.util.ArrayList<>();
        dashboard.get("templating").get("list").forEach(v -> variables.add(v.get("name").asText()));
        assertTrue(variables.containsAll(java.util.List.of("namespace", "run")), variables.toString());
    }
}
