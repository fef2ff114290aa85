package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.e2e.RealNodeIT.WriterLog;
import org.junit.jupiter.api.Test;

/**
 * The writer's log as the real-database scenarios read it: what makes them pass (writes resumed, an
 * outage short enough) must be what the log says.
 */
class WriterLogTest {
  static final String SWITCHOVER =
      String.join(
          "\n",
          "ok 1 1000",
          "ok 2 1050",
          "fail 3 1100 psql: error: server is in read-only mode",
          "fail 4 1400 psql: error: connection refused",
          "ok 5 3600",
          "some other line",
          "fail 6 3700 timeout",
          "ok 7 4000",
          "ok 8 4050",
          "");

  @Test
  void outagesRunFromAFailedWriteToTheNextAcknowledgedOne() {
    WriterLog log = WriterLog.parse(SWITCHOVER);
    assertThat(log.acknowledged()).containsExactly("1", "2", "5", "7", "8");
    assertThat(log.outages()).containsExactly(2500L, 300L);
    assertThat(log.longestOutage()).isEqualTo(2500);
    assertThat(log.firstFailure().orElseThrow().error())
        .isEqualTo("psql: error: server is in read-only mode");
    assertThat(log.recovered()).isTrue();
    assertThat(log.lastRow()).isEqualTo(8);
    assertThat(log.acknowledgedAfter(6)).containsExactly("7", "8");
  }

  @Test
  void aWriterThatEndsFailingHasNotRecoveredAndItsLastOutageCountsForNothing() {
    WriterLog log = WriterLog.parse("ok 1 1000\nfail 2 1100 refused\nfail 3 9000 refused\n");
    assertThat(log.recovered()).isFalse();
    assertThat(log.outages()).isEmpty();
    assertThat(log.longestOutage()).isZero();
    assertThat(log.acknowledgedAfter(1)).isEmpty();
  }

  @Test
  void anEmptyLogHasNeitherWritesNorARecovery() {
    WriterLog log = WriterLog.parse("");
    assertThat(log.recovered()).isFalse();
    assertThat(log.lastRow()).isZero();
    assertThat(log.firstFailure()).isEmpty();
  }
}
