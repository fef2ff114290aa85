package dev.cellar.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which servers are asked to reload a renewed certificate. */
class TlsReloadTest {
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void theIssueTimeOfCellarsCertificatesUndoesTheirBackdating() {
    Certificates.Issued ca = Certificates.newCa("ca", NOW);
    for (Duration validity : List.of(Duration.ofMinutes(2), Duration.ofDays(90))) {
      Certificates.Issued server = Certificates.newServer(ca, List.of("db"), NOW, validity);
      Instant issued = TlsReload.issued(Certificates.facts(server.certificate()), true);
      assertThat(Duration.between(NOW, issued).abs()).isLessThan(Duration.ofSeconds(1));
    }
    // A user's certificate: its notBefore.
    Certificates.Issued theirs =
        Certificates.newServer(ca, List.of("db"), NOW, Duration.ofDays(90));
    assertThat(TlsReload.issued(Certificates.facts(theirs.certificate()), false))
        .isEqualTo(NOW.minus(Certificates.BACKDATE));
  }

  @Test
  void aServerRunsSinceItsContainersStartedAt() {
    Pod running =
        new PodBuilder()
            .withNewStatus()
            .addNewContainerStatus()
            .withName("database")
            .withNewState()
            .withNewRunning("2026-01-01T00:00:05Z")
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    assertThat(TlsReload.started(running)).contains(Instant.parse("2026-01-01T00:00:05Z"));
    assertThat(TlsReload.started(new PodBuilder().build())).isEmpty();
    // What sha256sum prints for the mounted file.
    assertThat(TlsReload.sha256("x\n"))
        .isEqualTo("73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac");
  }
}
