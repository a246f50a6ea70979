package dev.pacer.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.tls.RunCertificate;

/**
 * The server's certificate of a local https run, in {@code <run dir>/tls/}: made for the run (trusted by its clients
 * alone, valid a day), or copied from {@code spec.tls.certificate.directory}. The key file is readable by its owner
 * only; nothing prints it.
 */
final class LocalTls {
    static final String DIRECTORY = "tls";
    static final String CERTIFICATE = "tls.crt";
    static final String KEY = "tls.key";
    static final String AUTHORITY = "ca.crt";
    /** The names a local server answers to: the clients connect to 127.0.0.1. */
    static final List<String> LOCAL_HOSTS = List.of("127.0.0.1", "localhost", "::1");

    /** Where the server reads its certificate and key, and what the clients trust. */
    record Material(Path certificate, Path key, String trustedPem) {
    }

    private LocalTls() {
    }

    static Material prepare(RunPlan.TlsPlan tls, Path runDirectory, Path specDirectory) throws IOException {
        Path target = runDirectory.resolve(DIRECTORY);
        Files.createDirectories(target);
        Path certificate = target.resolve(CERTIFICATE);
        Path key = target.resolve(KEY);
        if (tls.secretName() != null) {
            throw new IOException("spec.tls.certificate.secretName names a Kubernetes Secret: locally give "
                    + "spec.tls.certificate.directory (tls.crt and tls.key in PEM), or leave spec.tls.certificate unset to have one made for the run");
        }
        String trusted;
        if (tls.generated()) {
            Instant now = Instant.now();
            RunCertificate made = RunCertificate.selfSigned(LOCAL_HOSTS, now.minus(Duration.ofMinutes(5)), now.plus(Duration.ofDays(1)));
            writeKey(key, made.keyPem());
            Files.writeString(certificate, made.certificatePem(), StandardCharsets.US_ASCII);
            trusted = made.certificatePem();
        } else {
            Path source = specDirectory.resolve(tls.directory());
            Path givenCertificate = source.resolve(CERTIFICATE);
            Path givenKey = source.resolve(KEY);
            for (Path required : List.of(givenCertificate, givenKey)) {
                if (!Files.isReadable(required)) {
                    throw new IOException("spec.tls.certificate.directory: " + required + " is missing or unreadable (the directory must hold "
                            + CERTIFICATE + " and " + KEY + " in PEM)");
                }
            }
            writeKey(key, Files.readString(givenKey, StandardCharsets.US_ASCII));
            Files.copy(givenCertificate, certificate, StandardCopyOption.REPLACE_EXISTING);
            Path authority = source.resolve(AUTHORITY);
            trusted = Files.readString(Files.isReadable(authority) ? authority : givenCertificate, StandardCharsets.US_ASCII);
        }
        return new Material(certificate, key, trusted);
    }

    private static void writeKey(Path key, String pem) throws IOException {
        Files.deleteIfExists(key);
        Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(key, pem, StandardCharsets.US_ASCII);
    }
}
