package dev.pacer.operator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
        List<String> variables = new ArrayList<>();
        dashboard.get("templating").get("list").forEach(v -> variables.add(v.get("name").asText()));
        assertTrue(variables.containsAll(List.of("namespace", "run")), variables.toString());
    }

    @Test
    void theComparisonTableLinksEachRunOverTheSameRangeAsItsStatus() throws Exception {
        JsonNode table = null;
        for (JsonNode panel : new ObjectMapper().readTree(Files.readString(Path.of("../dashboards/pacer-server-comparison.json"))).get("panels")) {
            if (panel.toString().contains(RunDashboardLink.PATH)) {
                table = panel;
            }
        }
        assertTrue(table != null, "a comparison panel links to " + RunDashboardLink.PATH);
        String url = table.findValues("url").stream().map(JsonNode::asText).filter(u -> u.startsWith(RunDashboardLink.PATH))
                .findFirst().orElseThrow();
        Matcher from = Pattern.compile("from=\\$\\{__data\\.fields\\[\"Value #(\\w)\"]}").matcher(url);
        Matcher to = Pattern.compile("to=\\$\\{__data\\.fields\\[\"Value #(\\w)\"]}").matcher(url);
        assertTrue(from.find() && to.find(), url);
        Map<String, String> exprs = new HashMap<>();
        table.get("targets").forEach(t -> exprs.put(t.get("refId").asText(), t.get("expr").asText()));
        assertTrue(url.contains("var-namespace=${__data.fields.namespace}&var-run=${__data.fields.run}"), url);
        assertEquals("(max by (namespace, run, server, variant) (last_over_time(pacer_run_load_start_timestamp_seconds"
                + "{namespace=~\"$namespace\", server=~\"$server\", variant=~\"$variant\"}[$__range])) - "
                + RunDashboardLink.BEFORE_LOAD_MS / 1000 + ") * 1000", exprs.get(from.group(1)));
        assertEquals("(max by (namespace, run, server, variant) (last_over_time(pacer_run_window_end_timestamp_seconds"
                + "{namespace=~\"$namespace\", server=~\"$server\", variant=~\"$variant\"}[$__range])) + "
                + RunDashboardLink.AFTER_WINDOW_MS / 1000 + ") * 1000", exprs.get(to.group(1)));
    }
}
