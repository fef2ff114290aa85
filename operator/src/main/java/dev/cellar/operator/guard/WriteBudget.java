package dev.cellar.operator.guard;

import dev.cellar.api.v1.Database;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
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

  private static final Map<String, Deque<Instant>> WRITES = new ConcurrentHashMap<>();
  private static volatile Instant lastSweep = Instant.EPOCH;

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
    Instant now = Instant.now();
    sweep(now);
    Deque<Instant> writes =
        WRITES.computeIfAbsent(db.getMetadata().getUid() + "/" + child, k -> new ArrayDeque<>());
    synchronized (writes) {
      forget(writes, now);
      if (writes.size() >= LIMIT) {
        throw new WriteLoop(
            child
                + " was written "
                + writes.size()
                + " times within "
                + WINDOW.toSeconds()
                + " s and still differs from what Cellar applies, so its writes are paused; this"
                + " is a bug in Cellar for this spec: please report it with kubectl get db "
                + db.getMetadata().getName()
                + " -o yaml");
      }
      writes.addLast(now);
    }
  }

  /** Forgets writes older than the window, and children with none left, once a window. */
  private static void sweep(Instant now) {
    if (lastSweep.plus(WINDOW).isAfter(now)) {
      return;
    }
    lastSweep = now;
    WRITES
        .values()
        .removeIf(
            writes -> {
              synchronized (writes) {
                forget(writes, now);
                return writes.isEmpty();
              }
            });
  }

  private static void forget(Deque<Instant> writes, Instant now) {
    while (!writes.isEmpty() && !writes.peekFirst().plus(WINDOW).isAfter(now)) {
      writes.removeFirst();
    }
  }

  /** For tests: forget everything. */
  static void reset() {
    WRITES.clear();
  }
}
