package dev.pacer.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.tls.RunCertificate;

/**
 * The server's certificate of a local https run: made for the run (trusted by its clients alone, valid a day) in
 * {@code <run dir>/tls/}, its key readable by its owner only and deleted once the run is over; or the files of
 * {@code spec.tls.certificate.directory}, read where they are (a user's key is never copied). Nothing prints a key.
 */
final class LocalTls {
    static final String DIRECTORY = "tls";
    static final String CERTIFICATE = "tls.crt";
    static final String KEY = "tls.key";
    static final String AUTHORITY = "ca.crt";
    /** The names a local server answers to: the clients connect to 127.0.0.1. */
    static final List<String> LOCAL_HOSTS = List.of("127.0.0.1", "localhost", "::1");

    /**
     * Where the server reads its certificate and key, and what the clients trust.
     *
     * @param made whether the run made them (its key is then deleted at the end, {@link #forget})
     */
    record Material(Path certificate, Path key, String trustedPem, boolean made) {
    }

    private LocalTls() {
    }

    static Material prepare(RunPlan.TlsPlan tls, Path runDirectory, Path specDirectory) throws IOException {
        if (tls.secretName() != null) {
            throw new IOException("spec.tls.certificate.secretName names a Kubernetes Secret: locally give "
                    + "spec.tls.certificate.directory (tls.crt and tls.key in PEM), or leave spec.tls.certificate unset to have one made for the run");
        }
        if (tls.generated()) {
            Path target = runDirectory.resolve(DIRECTORY);
            Files.createDirectories(target);
            Path certificate = target.resolve(CERTIFICATE);
            Path key = target.resolve(KEY);
            Instant now = Instant.now();
            RunCertificate made = RunCertificate.selfSigned(LOCAL_HOSTS, now.minus(Duration.ofMinutes(5)), now.plus(Duration.ofDays(1)));
            writeKey(key, made.keyPem());
            Files.writeString(certificate, made.certificatePem(), StandardCharsets.US_ASCII);
            return new Material(certificate, key, made.certificatePem(), true);
        }
        Path source = specDirectory.resolve(tls.directory()).toAbsolutePath().normalize();
        Path certificate = source.resolve(CERTIFICATE);
        Path key = source.resolve(KEY);
        for (Path required : List.of(certificate, key)) {
            if (!Files.isReadable(required)) {
                throw new IOException("spec.tls.certificate.directory: " + required + " is missing or unreadable (the directory must hold "
                        + CERTIFICATE + " and " + KEY + " in PEM)");
            }
        }
        Path authority = source.resolve(AUTHORITY);
        String trusted = Files.readString(Files.isReadable(authority) ? authority : certificate, StandardCharsets.US_ASCII);
        return new Material(certificate, key, trusted, false);
    }

    /** Once the run is over: the key made for it goes (its certificate stays beside the results, as a record). */
    static void forget(Material material) {
        if (material != null && material.made()) {
            try {
                Files.deleteIfExists(material.key());
            } catch (IOException e) {
                // the run's own throwaway key, trusted by nothing but that run's clients
            }
        }
    }

    private static void writeKey(Path key, String pem) throws IOException {
        Files.deleteIfExists(key);
        Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(key, pem, StandardCharsets.US_ASCII);
    }
}
