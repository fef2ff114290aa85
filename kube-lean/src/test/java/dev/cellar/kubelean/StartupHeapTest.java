package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** On this test's own JVM: its heap ratios set as the Deployment sets them, then changed. */
class StartupHeapTest {
  final HotSpotDiagnosticMXBean vm =
      ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
  String min;
  String max;

  @BeforeEach
  void asTheDeployment() {
    min = value(StartupHeap.MIN);
    max = value(StartupHeap.MAX);
    vm.setVMOption(StartupHeap.MIN, "10");
    vm.setVMOption(StartupHeap.MAX, "20");
  }

  @AfterEach
  void asBefore() {
    System.clearProperty("cellar.startupHeap");
    vm.setVMOption(StartupHeap.MAX, "100");
    vm.setVMOption(StartupHeap.MIN, min);
    vm.setVMOption(StartupHeap.MAX, max);
  }

  String value(String flag) {
    return vm.getVMOption(flag).getValue();
  }

  @Test
  void theRatiosAreLooseUntilRestoredThenTheDeploymentsAgain() {
    StartupHeap heap = StartupHeap.loosen();
    assertThat(value(StartupHeap.MIN)).isEqualTo("40");
    assertThat(value(StartupHeap.MAX)).isEqualTo("70");
    heap.restore();
    assertThat(value(StartupHeap.MIN)).isEqualTo("10");
    assertThat(value(StartupHeap.MAX)).isEqualTo("20");
  }

  @Test
  void offWhenSaid() {
    System.setProperty("cellar.startupHeap", "false");
    StartupHeap heap = StartupHeap.loosen();
    assertThat(value(StartupHeap.MIN)).isEqualTo("10");
    assertThat(value(StartupHeap.MAX)).isEqualTo("20");
    heap.restore();
    assertThat(value(StartupHeap.MIN)).isEqualTo("10");
    assertThat(value(StartupHeap.MAX)).isEqualTo("20");
  }
}
