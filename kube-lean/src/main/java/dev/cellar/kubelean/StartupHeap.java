package dev.cellar.kubelean;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM's default bounds on the old generation's free space (40 to 70 %) while the informers fill
 * the caches, the Deployment's (10 to 20 %) once they have.
 *
 * <p>The Deployment keeps the old generation within 10 to 20 % of what is live, which keeps a
 * converged operator's RSS low. But a restart beside 1000 Databases fills about 60 MiB of caches
 * from a 48 MiB heap, and with those bounds the old generation grows in small steps, each a full
 * collection of all cached so far: a sixth of the restart's CPU (docs/performance.md, Looser heap
 * bounds while the caches fill). Both bounds are manageable flags, so they are loosened here until
 * JOSDK has started (its informers have synced), then set back, and the heap is collected until the
 * old generation is back within them: the serial collector gives back 0, 10, 40 and then 100 % of
 * the excess in consecutive full collections. Beside 1000 Databases: ready 0.5 to 0.9 s sooner,
 * with 0.6 to 0.8 s less CPU, and the same peak RSS. Off with {@code -Dcellar.startupHeap=false}.
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

  /** The flags and the values to set back; null when nothing was loosened. */
  private final HotSpotDiagnosticMXBean vm;

  private final String min;
  private final String max;

  private StartupHeap(HotSpotDiagnosticMXBean vm, String min, String max) {
    this.vm = vm;
    this.min = min;
    this.max = max;
  }

  static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.startupHeap"));
  }

  /**
   * Loosens the bounds now, until {@link #restore}; when off or when the JVM refuses, leaves them
   * and gives a {@code restore} that does nothing.
   */
  public static StartupHeap loosen() {
    StartupHeap unchanged = new StartupHeap(null, null, null);
    if (!enabled()) {
      return unchanged;
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
      return unchanged;
    }
    // The JVM refuses a minimum above the maximum: the maximum goes up first, down last.
    if (!set(vm, MAX, LOOSE_MAX)) {
      return unchanged;
    }
    if (!set(vm, MIN, LOOSE_MIN)) {
      set(vm, MAX, max);
      return unchanged;
    }
    return new StartupHeap(vm, min, max);
  }

  /**
   * Sets the bounds back, once JOSDK has started (its start returns when the informers have
   * synced), and collects until the old generation is within them.
   */
  public void restore() {
    if (vm == null) {
      return;
    }
    set(vm, MIN, min);
    set(vm, MAX, max);
    for (int i = 0; i < COLLECTIONS; i++) {
      System.gc();
    }
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
