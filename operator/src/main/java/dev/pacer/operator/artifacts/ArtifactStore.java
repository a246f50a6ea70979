package dev.pacer.operator.artifacts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.engine.report.ResultsDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finished runs' results directories on a volume the operator writes to (docs/operator.md, "Artifacts"):
 * {@code ROOT/NAMESPACE/NAME/UID/} holds what a local run's directory holds. They outlive the run's pods and the
 * operator's restarts; {@link #prune} deletes them after the retention, or once their run is gone when there is none.
 */
public final class ArtifactStore {
    private static final Logger LOG = LoggerFactory.getLogger(ArtifactStore.class);
    /** Kubernetes names and uids: what a path segment of the store may be. */
    static final Pattern SEGMENT = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?");

    private final Path root;
    private final Duration retention;
    private final String service;
    private final Clock clock;

    /**
     * @param retention how long after the run finished its files are kept; {@code null}: as long as the run exists
     * @param service   the operator's Service serving them ({@code NAMESPACE/NAME:PORT}), {@code null} when none does
     */
    public ArtifactStore(Path root, Duration retention, String service, Clock clock) {
        this.root = root.toAbsolutePath().normalize();
        this.retention = retention;
        this.service = service;
        this.clock = clock;
    }

    public Path root() {
        return root;
    }

    /** Writes a run's results directory, replacing an earlier one of the same run (a collection repeated after a restart). */
    public BenchmarkRunStatus.Artifacts keep(BenchmarkRun run, ResultDocument document, Map<String, String> files) {
        BenchmarkRunStatus.Artifacts kept = new BenchmarkRunStatus.Artifacts();
        kept.service = service;
        Path target = root;
        try {
            kept.path = relativePath(run);
            target = root.resolve(kept.path);
            Path staging = target.resolveSibling("." + target.getFileName() + ".writing");
            deleteTree(staging);
            ResultsDirectory.write(staging, document, files);
            deleteTree(target);
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(staging, target);
            }
            List<Path> written = listFiles(target);
            kept.files = written.size();
            long bytes = 0;
            for (Path file : written) {
                bytes += Files.size(file);
            }
            kept.bytes = bytes;
            if (retention != null) {
                kept.keptUntil = clock.instant().plus(retention).toString();
            }
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            kept.error = "could not write " + target + ": " + e.getMessage();
            LOG.warn("run {}/{}: results not kept: {}", run.getMetadata().getNamespace(), run.getMetadata().getName(), kept.error);
        }
        return kept;
    }

    /** {@code NAMESPACE/NAME/UID}, or an error for names a store cannot hold (none that Kubernetes accepts). */
    static String relativePath(BenchmarkRun run) {
        String namespace = run.getMetadata().getNamespace();
        String name = run.getMetadata().getName();
        String uid = run.getMetadata().getUid() == null ? "no-uid" : run.getMetadata().getUid();
        for (String segment : List.of(namespace, name, uid)) {
            if (segment == null || !SEGMENT.matcher(segment).matches()) {
                throw new IllegalArgumentException("'" + segment + "' cannot name a directory of the artifact store");
            }
        }
        return namespace + "/" + name + "/" + uid;
    }

    /** A kept run's directory, when the three segments name one. */
    public Optional<Path> directory(String namespace, String name, String uid) {
        if (!Stream.of(namespace, name, uid).allMatch(s -> s != null && SEGMENT.matcher(s).matches())) {
            return Optional.empty();
        }
        Path dir = root.resolve(namespace).resolve(name).resolve(uid).normalize();
        return dir.startsWith(root) && Files.isRegularFile(dir.resolve(ResultDocument.FILE_NAME)) ? Optional.of(dir) : Optional.empty();
    }

    /**
     * Deletes what is past its retention, or, without one, what belongs to no existing run; and any half-written
     * directory older than an hour.
     *
     * @param existing the runs the operator knows now
     * @return the directories deleted, relative to the root
     */
    public List<String> prune(Collection<BenchmarkRun> existing) throws IOException {
        Set<String> live = existing.stream().map(r -> {
            try {
                return relativePath(r);
            } catch (IllegalArgumentException e) {
                return "";
            }
        }).collect(Collectors.toSet());
        Instant now = clock.instant();
        List<String> deleted = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return deleted;
        }
        for (Path dir : runDirectories()) {
            String relative = root.relativize(dir).toString().replace('\\', '/');
            Instant written = Files.getLastModifiedTime(dir).toInstant();
            boolean staging = dir.getFileName().toString().startsWith(".");
            boolean expired = staging ? written.plus(Duration.ofHours(1)).isBefore(now)
                    : retention != null ? written.plus(retention).isBefore(now) : !live.contains(relative);
            if (expired) {
                deleteTree(dir);
                deleted.add(relative);
            }
        }
        return deleted;
    }

    /** Every {@code NAMESPACE/NAME/UID} directory (and staging ones). */
    private List<Path> runDirectories() throws IOException {
        try (Stream<Path> walk = Files.walk(root, 3)) {
            return walk.filter(p -> root.relativize(p).getNameCount() == 3 && Files.isDirectory(p)).toList();
        }
    }

    public static List<Path> listFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile).filter(p -> ResultsDirectory.isFileName(p.getFileName().toString()))
                    .sorted().toList();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
