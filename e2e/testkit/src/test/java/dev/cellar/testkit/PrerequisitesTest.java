package dev.cellar.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.opentest4j.TestAbortedException;

class PrerequisitesTest {
  static Prerequisites in(Map<String, String> environment) {
    return new Prerequisites(environment::get);
  }

  @Test
  void somethingPresentIsNeitherSkipNorFailure() {
    assertThatCode(() -> in(Map.of("CI", "true")).check(true, "helm", "build it"))
        .doesNotThrowAnyException();
    assertThatCode(() -> in(Map.of()).check(true, "helm", "build it")).doesNotThrowAnyException();
  }

  @Test
  void somethingMissingSkipsOnADevelopersMachine() {
    assertThatThrownBy(() -> in(Map.of()).check(false, "helm at /x/helm", "build.sh tools"))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("needs helm at /x/helm, which is missing: build.sh tools")
        .hasMessageContaining("with CI=true this fails");
    assertThatThrownBy(() -> in(Map.of("CI", "false")).check(false, "helm", "build it"))
        .isInstanceOf(TestAbortedException.class);
  }

  @Test
  void somethingMissingFailsInCi() {
    assertThatThrownBy(() -> in(Map.of("CI", "true")).check(false, "helm at /x/helm", "tools"))
        .isInstanceOf(AssertionError.class)
        .isNotInstanceOf(TestAbortedException.class)
        .hasMessage("CI=true and this test needs helm at /x/helm, which is missing: tools");
  }

  @Test
  void theRealNodeIsOnWithCellarRealNodeTrue() {
    assertThatCode(() -> in(Map.of("CI", "true", "CELLAR_REAL_NODE", "true")).checkRealNode())
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> in(Map.of("CI", "true", "CELLAR_REAL_NODE", "false")).checkRealNode())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the real node (CELLAR_REAL_NODE=true)")
        .hasMessageContaining("as root");
    assertThatThrownBy(() -> in(Map.of()).checkRealNode()).isInstanceOf(TestAbortedException.class);
  }

  @Test
  void aClassThatNeedsTheRealNodeIsDisabledWithoutItOrFailsInCi() {
    assertThat(in(Map.of("CELLAR_REAL_NODE", "true")).realNodeCondition().isDisabled()).isFalse();
    ConditionEvaluationResult off = in(Map.of()).realNodeCondition();
    assertThat(off.isDisabled()).isTrue();
    assertThat(off.getReason()).hasValueSatisfying(r -> assertThat(r).contains("CELLAR_REAL_NODE"));
    assertThatThrownBy(() -> in(Map.of("CI", "true")).realNodeCondition())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CI=true and this test needs the real node");
  }
}
