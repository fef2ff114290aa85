package dev.cellar.operator.guard;

import dev.cellar.api.v1.Database;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A budget of writes per child: no child of a Database is created, updated or deleted more than
 * {@link #LIMIT} times in a {@link #WINDOW}. A converged Database costs no write at all, and a spec
 * change a handful; a child written more often than that is one whose desired state never reads
 * back equal (a value the API server stores in another form, a field another controller owns), and
 * writing it again would only repeat the loop. The write is refused with {@link WriteLoop}, which
 * the status reports as reason WriteLoop, and the reconciler's retry backs off.
 */
public final class WriteBudget {
  /**
   * A spec change writes each child once, a storage resize the StatefulSet twice: eight in five
   * minutes leaves room for a busy user, and holds a loop to fewer than two writes a minute.
   */
  public static final int LIMIT = 8;

  public static final Duration WINDOW = Duration.ofMinutes(5);

  private static final long WINDOW_MILLIS = WINDOW.toMillis();

  /**
   * Each Database's writes within the window, by its uid, oldest first: pairs of the child's hash
   * and the write's time in milliseconds: one array of a few hundred bytes per Database, where a
   * queue of {@code Instant}s per child (keyed by uid and child) held 2.1 MB while 500 new
   * Databases converged and for the five minutes after (docs/performance.md, A write budget of one
   * array per Database). Two children of one Database whose names hash alike share one budget,
   * which can only pause a loop sooner.
   */
  private static final Map<String, long[]> WRITES = new ConcurrentHashMap<>();

  private static final long[] NONE = new long[0];

  private static volatile long lastSweep = now();

  private WriteBudget() {}

  /** A write refused because the child was written too often. */
  public static final class WriteLoop extends RuntimeException {
    WriteLoop(String message) {
      super(message);
    }
  }

  /**
   * Spends one write of {@code child} (kind and name) of {@code db}.
   *
   * @throws WriteLoop when the budget is spent
   */
  public static void spend(Database db, String child) {
    spend(db, child, now());
  }

  /** {@link #spend(Database, String)} at {@code now}, in milliseconds. */
  static void spend(Database db, String child, long now) {
    sweep(now);
    long id = child.hashCode();
    WRITES.compute(
        db.getMetadata().getUid(),
        (uid, writes) -> {
          long[] recent = recent(writes, now);
          int count = 0;
          for (int i = 0; i < recent.length; i += 2) {
            if (recent[i] == id) {
              count++;
            }
          }
          if (count >= LIMIT) {
            // Thrown out of compute, which leaves the Database's writes as they were.
            throw new WriteLoop(
                child
                    + " was written "
                    + count
                    + " times within "
                    + WINDOW.toSeconds()
                    + " s and still differs from what Cellar applies, so its writes are paused;"
                    + " this is a bug in Cellar for this spec: please report it with kubectl get db "
                    + db.getMetadata().getName()
                    + " -o yaml");
          }
          long[] more = Arrays.copyOf(recent, recent.length + 2);
          more[recent.length] = id;
          more[recent.length + 1] = now;
          return more;
        });
  }

  /**
   * Milliseconds from the JVM's monotonic clock: a wall clock set back would lengthen the window.
   */
  static long now() {
    return System.nanoTime() / 1_000_000;
  }

  /** Forgets writes older than the window, and Databases with none left, once a window. */
  private static void sweep(long now) {
    if (now - lastSweep < WINDOW_MILLIS) {
      return;
    }
    lastSweep = now;
    for (String uid : WRITES.keySet()) {
      WRITES.computeIfPresent(
          uid,
          (k, writes) -> {
            long[] recent = recent(writes, now);
            return recent.length == 0 ? null : recent;
          });
    }
  }

  /** {@code writes} without those older than the window at {@code now}. */
  private static long[] recent(long[] writes, long now) {
    if (writes == null) {
      return NONE;
    }
    int first = 0;
    while (first < writes.length && writes[first + 1] + WINDOW_MILLIS <= now) {
      first += 2;
    }
    return first == 0 ? writes : Arrays.copyOfRange(writes, first, writes.length);
  }

  /** How many Databases have writes remembered (tests). */
  static int remembered() {
    return WRITES.size();
  }

  /** For tests: forget everything. */
  static void reset() {
    WRITES.clear();
    lastSweep = now();
  }
}
