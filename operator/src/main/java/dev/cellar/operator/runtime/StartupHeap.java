package dev.cellar.operator.runtime;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM's default bounds on the old generation's free space (40 to 70 %) while the informers fill
 * the caches, the Deployment's (10 to 20 %) once they have.
 *
 * <p>The Deployment keeps the old generation within 10 to 20 % of what is live, which keeps a
 * converged operator's RSS low. But a restart beside 1000 Databases fills about 60 MiB of caches
 * from a 48 MiB heap, and with those bounds the old generation grows in small steps, each a full
 * collection of all cached so far: a sixth of the restart's CPU (docs/benchmarks.md, thirty-sixth
 * pass). Both bounds are manageable flags, so they are loosened here until JOSDK has started (its
 * informers have synced), then set back, and the heap is collected until the old generation is back
 * within them: the serial collector gives back 0, 10, 40 and then 100 % of the excess in
 * consecutive full collections. Beside 1000 Databases: ready 0.5 to 0.9 s sooner, with 0.6 to 0.8 s
 * less CPU, and the same peak RSS. Off with {@code -Dcellar.startupHeap=false}.
 */
public final class StartupHeap {
  private static final Logger LOG = LoggerFactory.getLogger(StartupHeap.class);
  static final String MIN = "MinHeapFreeRatio";
  static final String MAX = "MaxHeapFreeRatio";

  /** The JVM's defaults. */
  static final String LOOSE_MIN = "40";

  static final String LOOSE_MAX = "70";

  /** Full collections that give back all the old generation's excess (see above). */
  static final int COLLECTIONS = 4;

  private StartupHeap() {}

  static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.startupHeap"));
  }

  /**
   * Loosens the bounds now, and sets them back on a daemon thread once {@code started} says so;
   * returns that thread, or null when off or when the JVM refuses.
   */
  public static Thread loosenUntil(BooleanSupplier started) {
    if (!enabled()) {
      return null;
    }
    HotSpotDiagnosticMXBean vm;
    String min;
    String max;
    try {
      vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      min = vm.getVMOption(MIN).getValue();
      max = vm.getVMOption(MAX).getValue();
    } catch (RuntimeException | LinkageError e) {
      LOG.warn("cannot read the heap's ratios: {}", e.toString());
      return null;
    }
    // The JVM refuses a minimum above the maximum: the maximum goes up first, down last.
    if (!set(vm, MAX, LOOSE_MAX)) {
      return null;
    }
    if (!set(vm, MIN, LOOSE_MIN)) {
      set(vm, MAX, max);
      return null;
    }
    Thread restore =
        new Thread(
            () -> {
              try {
                while (!started.getAsBoolean()) {
                  Thread.sleep(100);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              set(vm, MIN, min);
              set(vm, MAX, max);
              for (int i = 0; i < COLLECTIONS; i++) {
                System.gc();
              }
            },
            "cellar-startup-heap");
    restore.setDaemon(true);
    restore.start();
    return restore;
  }

  private static boolean set(HotSpotDiagnosticMXBean vm, String flag, String value) {
    try {
      vm.setVMOption(flag, value);
      return true;
    } catch (RuntimeException e) {
      LOG.warn("cannot set -XX:{}={}: {}", flag, value, e.getMessage());
      return false;
    }
  }
}
