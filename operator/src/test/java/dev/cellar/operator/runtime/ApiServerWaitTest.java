package dev.cellar.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApiServerWaitTest {
  @Test
  void retriesWithBackoffUntilTheApiServerIsReady() throws InterruptedException {
    Deque<Optional<String>> answers = new ArrayDeque<>();
    for (int i = 0; i < 7; i++) {
      answers.add(Optional.of("the API server at https://127.0.0.1:1 does not answer"));
    }
    answers.add(Optional.of("the API server does not serve databases: install the CRD"));
    answers.add(Optional.empty());
    List<Duration> sleeps = new ArrayList<>();

    int failures = new ApiServerWait(answers::poll, sleeps::add).run();

    assertThat(failures).isEqualTo(8);
    assertThat(sleeps)
        .extracting(Duration::toSeconds)
        .containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L, 30L);
  }

  @Test
  void doesNotWaitWhenTheApiServerIsReady() throws InterruptedException {
    List<Duration> sleeps = new ArrayList<>();
    assertThat(new ApiServerWait(Optional::empty, sleeps::add).run()).isZero();
    assertThat(sleeps).isEmpty();
  }
}
