package dev.cellar.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class OperatorSettingsTest {
  @Test
  void defaults() {
    OperatorSettings s = OperatorSettings.from(Map.of());
    assertThat(s.watchNamespaces()).isEmpty();
    assertThat(s.leaderElection()).isFalse();
    assertThat(s.operatorNamespace()).isEqualTo("cellar-system");
    assertThat(s.httpPort()).isEqualTo(8080);
    assertThat(s.logFormat()).isEqualTo(OperatorSettings.LogFormat.TEXT);
    assertThat(s.reconcileThreads()).isEqualTo(10);
  }

  @Test
  void readsEveryVariable() {
    OperatorSettings s =
        OperatorSettings.from(
            Map.of(
                "WATCH_NAMESPACES", " a, b ,,",
                "LEADER_ELECTION", "TRUE",
                "OPERATOR_NAMESPACE", "ops",
                "HTTP_PORT", "9090",
                "LOG_FORMAT", "json",
                "RECONCILE_THREADS", "4"));
    assertThat(s.watchNamespaces()).containsExactlyInAnyOrder("a", "b");
    assertThat(s.leaderElection()).isTrue();
    assertThat(s.operatorNamespace()).isEqualTo("ops");
    assertThat(s.httpPort()).isEqualTo(9090);
    assertThat(s.logFormat()).isEqualTo(OperatorSettings.LogFormat.JSON);
    assertThat(s.reconcileThreads()).isEqualTo(4);
  }

  @Test
  void badValuesNameTheVariableAndWhatItAccepts() {
    assertThatThrownBy(() -> OperatorSettings.from(Map.of("LOG_FORMAT", "xml")))
        .hasMessage("LOG_FORMAT=xml is not valid: use text or json");
    assertThatThrownBy(() -> OperatorSettings.from(Map.of("HTTP_PORT", "abc")))
        .hasMessage("HTTP_PORT=abc is not valid: use a whole number from 0 to 65535");
    assertThatThrownBy(() -> OperatorSettings.from(Map.of("HTTP_PORT", "70000")))
        .hasMessageStartingWith("HTTP_PORT=70000 is not valid");
    assertThatThrownBy(() -> OperatorSettings.from(Map.of("LEADER_ELECTION", "yes")))
        .hasMessage("LEADER_ELECTION=yes is not valid: use true or false");
    assertThatThrownBy(() -> OperatorSettings.from(Map.of("RECONCILE_THREADS", "0")))
        .hasMessageStartingWith("RECONCILE_THREADS=0 is not valid");
  }

  @Test
  void helpListsEverySetting() {
    assertThat(OperatorSettings.HELP)
        .contains(
            "WATCH_NAMESPACES",
            "LEADER_ELECTION",
            "OPERATOR_NAMESPACE",
            "HTTP_PORT",
            "LOG_FORMAT",
            "RECONCILE_THREADS");
  }

  /** A clock the test moves by hand. */
  static final class ManualClock extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  @Test
  void livenessToleratesAWatchReconnectButNotAStuckOperator() {
    AtomicBoolean sourcesHealthy = new AtomicBoolean(true);
    ManualClock clock = new ManualClock();
    var window =
        new OperatorHttpServer.HealthWindow(sourcesHealthy::get, Duration.ofSeconds(90), clock);
    assertThat(window.healthy()).isTrue();
    sourcesHealthy.set(false);
    assertThat(window.healthy()).as("a reconnect starts").isTrue();
    clock.now = clock.now.plusSeconds(30);
    assertThat(window.healthy()).as("30 s into it").isTrue();
    sourcesHealthy.set(true);
    assertThat(window.healthy()).isTrue();
    sourcesHealthy.set(false);
    assertThat(window.healthy()).isTrue();
    clock.now = clock.now.plusSeconds(91);
    assertThat(window.healthy()).as("unhealthy for over 90 s: stuck").isFalse();
  }
}
