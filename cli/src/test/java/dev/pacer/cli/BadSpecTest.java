package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad specs give one clear line naming the field, exit code 2, and start no process. */
class BadSpecTest {
    static final String VALID = """
            kind: BenchmarkRun
            metadata: {name: bad}
            spec:
              server: {image: jetty12, cpus: "1"}
              clients: {count: 1, rate: "100", cpus: "1"}
              warmup: 2s
              duration: 4s
              timeout: 1m
            """;

    @TempDir
    Path work;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "negative rate         | rate: \"100\"   | rate: \"-100\"       | spec.clients.rate: '-100' is not a rate",
            "warmup over timeout   | warmup: 2s      | warmup: 2m           | spec.timeout: must be longer than spec.warmup + spec.duration",
            "unknown server        | image: jetty12  | image: tomcat:10     | spec.server.image: unknown server 'tomcat:10'",
            "missing field         | duration: 4s    | ''                   | spec.duration: is required",
            "unparsable quantity   | duration: 4s    | duration: 4 seconds  | spec.duration: '4 seconds' is not a duration",
            "unknown field         | warmup: 2s      | warmpu: 2s           | spec.warmpu: unknown field"})
    void badSpecIsOneLineExitTwoAndNoProcess(String name, String from, String to, String expected) throws Exception {
        Path spec = work.resolve("bad.yaml");
        Files.writeString(spec, VALID.replace(from, to));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PacerCommand.execute(new String[] {"run", spec.toString(), "-o", work.resolve("out").toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String errors = err.toString(StandardCharsets.UTF_8);
        assertThat(code).isEqualTo(PacerCommand.EXIT_BAD_INPUT);
        assertThat(errors).contains(expected);
        assertThat(errors.lines().toList()).as(errors).hasSize(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(ProcessHandle.current().children().toList()).isEmpty();
        assertThat(work.resolve("out")).doesNotExist();
    }

    @ParameterizedTest
    @CsvSource({"--no-such-option", "--output"})
    void badOptionsExitTwo(String option) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PacerCommand.execute(new String[] {"run", "x.yaml", option}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(PacerCommand.EXIT_BAD_INPUT);
        assertThat(err.toString(StandardCharsets.UTF_8)).isNotEmpty();
    }
}
