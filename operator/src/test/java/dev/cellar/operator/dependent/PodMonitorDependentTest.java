package dev.cellar.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.operator.dependent.PodMonitorDependent.PrometheusOperatorPresent;
import java.time.Duration;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

class PodMonitorDependentTest {
  static final LocalDateTime CHECKED = LocalDateTime.of(2026, 11, 24, 12, 0);
  static final Duration MINUTE = Duration.ofMinutes(1);

  @Test
  void theCrdIsLookedUpFirstThenAtMostOnceAMinuteWhetherItWasThereOrNot() {
    assertThat(PrometheusOperatorPresent.shouldCheck(null, null, CHECKED, MINUTE)).isTrue();
    for (boolean present : new boolean[] {true, false}) {
      assertThat(
              PrometheusOperatorPresent.shouldCheck(
                  present, CHECKED, CHECKED.plusSeconds(59), MINUTE))
          .as("present %s, 59 s later", present)
          .isFalse();
      assertThat(
              PrometheusOperatorPresent.shouldCheck(
                  present, CHECKED, CHECKED.plusSeconds(61), MINUTE))
          .as("present %s, 61 s later: a CRD removed or installed since is noticed", present)
          .isTrue();
    }
  }
}
