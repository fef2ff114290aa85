package dev.cellar.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
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
    assertThat(s.crdRecheck()).isEqualTo(Duration.ofMinutes(1));
    assertThat(s.lagPoll()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.credentialsRetry()).isEqualTo(Duration.ofSeconds(30));
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
                "RECONCILE_THREADS", "4",
                "CRD_RECHECK_SECONDS", "5",
                "LAG_POLL_SECONDS", "2",
                "CREDENTIALS_RETRY_SECONDS", "3"));
    assertThat(s.watchNamespaces()).containsExactlyInAnyOrder("a", "b");
    assertThat(s.leaderElection()).isTrue();
    assertThat(s.operatorNamespace()).isEqualTo("ops");
    assertThat(s.httpPort()).isEqualTo(9090);
    assertThat(s.logFormat()).isEqualTo(OperatorSettings.LogFormat.JSON);
    assertThat(s.reconcileThreads()).isEqualTo(4);
    assertThat(s.crdRecheck()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.lagPoll()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.credentialsRetry()).isEqualTo(Duration.ofSeconds(3));
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
    assertThatThrownBy(() -> OperatorSettings.from(Map.of("CRD_RECHECK_SECONDS", "0")))
        .hasMessage("CRD_RECHECK_SECONDS=0 is not valid: use a whole number from 1 to 3600");
    assertThatThrownBy(() -> OperatorSettings.from(Map.of("LAG_POLL_SECONDS", "1m")))
        .hasMessageStartingWith("LAG_POLL_SECONDS=1m is not valid");
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
            "RECONCILE_THREADS",
            "CRD_RECHECK_SECONDS",
            "LAG_POLL_SECONDS",
            "CREDENTIALS_RETRY_SECONDS");
  }
}
