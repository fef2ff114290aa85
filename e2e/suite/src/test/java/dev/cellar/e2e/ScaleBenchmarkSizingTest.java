package dev.cellar.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The memory limit the benchmark gives each size, as docs/operations.md's sizing states it. */
class ScaleBenchmarkSizingTest {
  @Test
  void theDeploymentsLimitHoldsWhatTheSizingSaysAndLargerSizesGetTheNextStep() {
    assertEquals(384, ScaleBenchmark.memoryLimitMiB(384, 500));
    assertEquals(384, ScaleBenchmark.memoryLimitMiB(384, 1000));
    assertEquals(384, ScaleBenchmark.memoryLimitMiB(384, 1850));
    assertEquals(512, ScaleBenchmark.memoryLimitMiB(384, 2000));
    assertEquals(1024, ScaleBenchmark.memoryLimitMiB(384, 5000));
    assertEquals(2048, ScaleBenchmark.memoryLimitMiB(384, 7000));
  }

  @Test
  void aLargerDeploymentLimitIsKept() {
    assertEquals(768, ScaleBenchmark.memoryLimitMiB(768, 500));
  }
}
