package dev.cellar.operator.facts;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Conditions.Reason;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Why a database pod cannot run, from its own status: a container waiting on an image it cannot
 * pull, on configuration it cannot find, crashing (with the last termination's reason, such as
 * OOMKilled), or a pod the scheduler cannot place. Pure: the pods and the time are given.
 *
 * <p>Transient states do not count: a pull in progress or a starting container is no trouble, and a
 * trouble counts only once it has lasted its {@code grace} (measured from when the pod last stopped
 * being ready, or was created), so one failed pull that the kubelet's next try mends never flips
 * the Database to Degraded.
 *
 * @param since when the pod's trouble began, as far as its status tells
 * @param grace how long it must last to count
 */
public record PodTrouble(Reason reason, String pod, String message, Instant since, Duration grace) {

  /** A failed pull is retried after 10 s by the kubelet: two tries before it counts. */
  static final Duration PULL_GRACE = Duration.ofSeconds(30);

  /** The Secret or ConfigMap a container needs may be created a moment after the pod. */
  static final Duration CONFIG_GRACE = Duration.ofSeconds(30);

  /** CrashLoopBackOff already means the container failed more than once. */
  static final Duration CRASH_GRACE = Duration.ZERO;

  /** A volume being provisioned or a node joining can keep a pod unscheduled for a while. */
  static final Duration SCHEDULING_GRACE = Duration.ofSeconds(60);

  /**
   * A claim of a storage class waits for that class's provisioner, and its pod for the scheduler's
   * next try once it is bound; both may just be busy: with 1,000 Databases created at once the
   * control plane here bound about 200 claims a minute, and after a minute's grace 740 Databases
   * turned Degraded, each with a Warning Event, then Ready again (docs/performance.md, Five minutes
   * for a storage class's provisioner). A provisioner that fails says so at once in a Warning on
   * the claim (VolumePending); one that does not run shows here after this long. A claim of no
   * class waits for a volume that someone must create, so it keeps the minute.
   */
  static final Duration PROVISIONING_GRACE = Duration.ofMinutes(5);

  /** The scheduler's words for a pod whose claims are not bound yet. */
  static final String UNBOUND_CLAIMS = "unbound immediate PersistentVolumeClaims";

  /**
   * A container that runs but stays unready this long has a readiness probe that keeps failing: a
   * primary whose set-up waits, a server that cannot start replicating. Long enough for a server's
   * crash recovery or a replica's seed from a modest primary, which are not trouble.
   */
  static final Duration NOT_READY_GRACE = Duration.ofMinutes(5);

  /** Longer kubelet messages are cut: they are one line of a condition. */
  static final int MAX_MESSAGE = 300;

  private static final Set<String> PULL = Set.of("ErrImagePull", "ImagePullBackOff");
  private static final Set<String> BAD_IMAGE = Set.of("InvalidImageName", "ErrImageNeverPull");
  private static final Set<String> CONFIG =
      Set.of("CreateContainerConfigError", "CreateContainerError", "RunContainerError");

  /** Whether it has lasted long enough to be reported at {@code now}. */
  public boolean counts(Instant now) {
    return !since.plus(grace).isAfter(now);
  }

  /** How long until it counts, if it does not yet. */
  public Optional<Duration> countsIn(Instant now) {
    Duration left = Duration.between(now, since.plus(grace));
    return left.isNegative() || left.isZero() ? Optional.empty() : Optional.of(left);
  }

  /**
   * The bootstrap's restore, once it has failed: its termination message names the cause (no such
   * dump, refused keys); the kubelet retries it, so fixing the cause is enough. It stays failed
   * through the retries (waiting in back-off, or running again) until it ends well: otherwise the
   * phase would flap between Failed and Provisioning at every retry, each flap a status write and
   * an Event.
   */
  private static Optional<PodTrouble> restore(Pod pod, ContainerStatus container) {
    Optional<ContainerStateTerminated> failed =
        Optional.ofNullable(container.getLastState())
            .map(s -> s.getTerminated())
            .filter(t -> t.getExitCode() != null && t.getExitCode() != 0);
    boolean succeeded =
        container.getState() != null
            && container.getState().getTerminated() != null
            && Integer.valueOf(0).equals(container.getState().getTerminated().getExitCode());
    if (failed.isEmpty() || succeeded) {
      return Optional.empty();
    }
    String pod_ = pod.getMetadata().getName();
    String why =
        failed
            .map(t -> t.getMessage())
            .filter(m -> !m.isBlank())
            .map(PodTrouble::clip)
            .orElse("see kubectl logs " + pod_ + " -c " + ChildNames.RESTORE_CONTAINER);
    return Optional.of(
        new PodTrouble(
            Reason.RESTORE_FAILED,
            pod_,
            "restoring spec.bootstrap.fromBackup into "
                + pod_
                + " failed: "
                + why
                + ". It is retried: fix the cause (the dump's name, the bucket, the credentials"
                + " Secret)",
            since(pod),
            Duration.ZERO));
  }

  /**
   * The first trouble among {@code pods} (by pod name), counted or not: one that keeps a pod from
   * running first, else a running container that is not ready.
   */
  public static Optional<PodTrouble> of(List<Pod> pods) {
    return of(pods, Map.of());
  }

  /**
   * As {@link #of(List)}, knowing which claims a provisioner makes: {@code provisioning} maps the
   * name of each claim that names a storage class to that class.
   */
  public static Optional<PodTrouble> of(List<Pod> pods, Map<String, String> provisioning) {
    List<Pod> live =
        pods.stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
            .toList();
    return live.stream()
        .map(p -> ofPod(p, provisioning))
        .flatMap(Optional::stream)
        .findFirst()
        .or(() -> live.stream().map(PodTrouble::notReady).flatMap(Optional::stream).findFirst());
  }

  /**
   * Why {@code pod} cannot run, if it cannot: not a running container that is merely not ready
   * (replacing that pod would not help it).
   */
  public static Optional<PodTrouble> ofPod(Pod pod) {
    return ofPod(pod, Map.of());
  }

  private static Optional<PodTrouble> ofPod(Pod pod, Map<String, String> provisioning) {
    if (pod.getStatus() == null) {
      return Optional.empty();
    }
    String name = pod.getMetadata().getName();
    Optional<PodCondition> unscheduled =
        condition(pod, "PodScheduled")
            .filter(c -> "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason()));
    if (unscheduled.isPresent()) {
      String why = clip(unscheduled.get().getMessage());
      String claim = ChildNames.DATA_VOLUME + "-" + name;
      Optional<String> storageClass =
          Optional.ofNullable(provisioning.get(claim)).filter(c -> why.contains(UNBOUND_CLAIMS));
      return Optional.of(
          new PodTrouble(
              Reason.UNSCHEDULABLE,
              name,
              unscheduledMessage(name, claim, why, storageClass),
              time(unscheduled.get().getLastTransitionTime()).orElse(since(pod)),
              storageClass.isPresent() ? PROVISIONING_GRACE : SCHEDULING_GRACE));
    }
    return containers(pod).map(c -> ofContainer(pod, c)).flatMap(Optional::stream).findFirst();
  }

  /**
   * Why pod {@code name} is not scheduled, from the scheduler's {@code why}. A pod whose claim is
   * not bound yet is unschedulable too, but wants a volume, not nodes; {@code storageClass} is its
   * claim's class when that class's provisioner makes the volume.
   */
  private static String unscheduledMessage(
      String name, String claim, String why, Optional<String> storageClass) {
    if (storageClass.isPresent()) {
      return "pod "
          + name
          + " has waited over "
          + PROVISIONING_GRACE.toMinutes()
          + " min for its volume claim "
          + claim
          + " to be bound and the pod scheduled, and no Warning on the claim says why: check that"
          + " storage class "
          + storageClass.get()
          + "'s provisioner runs and has room (kubectl describe pvc "
          + claim
          + "), and the scheduler's Events (kubectl describe pod "
          + name
          + ")";
    }
    if (why.contains(UNBOUND_CLAIMS)) {
      return "pod "
          + name
          + " waits for its volume claim to be bound, and no Warning on the claim says why: check"
          + " spec.storageClassName and that its provisioner runs (kubectl describe pvc "
          + claim
          + ")";
    }
    return "pod "
        + name
        + " cannot be scheduled: "
        + schedulingCauses(why)
        + ". Free or add nodes that fit its requests, volumes and spec.nodeSelector";
  }

  /** The scheduler's fit error: "0/5 nodes are available: 2 Insufficient cpu, ... ." and more. */
  private static final Pattern FIT_ERROR =
      Pattern.compile("^(\\d+)/(\\d+) nodes are available: (.*?)\\.(?:\\s|$)");

  /** One cause of a fit error: how many nodes it rules out, and the cause. */
  private static final Pattern COUNTED = Pattern.compile("^(\\d+) (.*)$");

  /**
   * The scheduler's message reduced to its causes. The scheduler rewrites it whenever pods
   * elsewhere come and go (how many nodes each cause rules out, its preemption verdict, in an order
   * sorted with those counts), and the message is copied into a condition: the counts would cost a
   * status write at every change elsewhere in the cluster while the pod stays unschedulable for the
   * same causes. The causes that rule out every node are named alone when there are any (a request
   * no node can hold: whether other nodes are also short of something else comes and goes with
   * other pods); else every cause, without counts. A message of another form is kept as it is.
   */
  static String schedulingCauses(String message) {
    Matcher m = FIT_ERROR.matcher(message);
    if (!m.find()) {
      return message;
    }
    Set<String> every = new TreeSet<>();
    Set<String> causes = new TreeSet<>();
    for (String item : m.group(3).split(", ")) {
      Matcher c = COUNTED.matcher(item);
      if (c.matches()) {
        causes.add(c.group(2));
        if (c.group(1).equals(m.group(2))) {
          every.add(c.group(2));
        }
      } else {
        causes.add(item);
      }
    }
    String nodes = m.group(1) + "/" + m.group(2) + " nodes are available: ";
    return every.isEmpty()
        ? nodes + String.join(", ", causes)
        : nodes + String.join(", ", every) + " (on every node)";
  }

  private static Optional<PodTrouble> ofContainer(Pod pod, ContainerStatus container) {
    if (ChildNames.RESTORE_CONTAINER.equals(container.getName())) {
      return restore(pod, container);
    }
    if (container.getState() == null || container.getState().getWaiting() == null) {
      return Optional.empty();
    }
    String pod_ = pod.getMetadata().getName();
    String waiting = String.valueOf(container.getState().getWaiting().getReason());
    String detail = clip(container.getState().getWaiting().getMessage());
    String where = "container " + container.getName() + " of pod " + pod_;
    if (PULL.contains(waiting) || BAD_IMAGE.contains(waiting)) {
      return Optional.of(
          new PodTrouble(
              Reason.IMAGE_PULL_FAILED,
              pod_,
              "pod "
                  + pod_
                  + " cannot pull image "
                  + container.getImage()
                  + (waiting.equals("ImagePullBackOff") ? "" : ": " + detail)
                  + ". Check spec.image (or spec.version) and that the node can reach the registry",
              since(pod),
              BAD_IMAGE.contains(waiting) ? Duration.ZERO : PULL_GRACE));
    }
    if (CONFIG.contains(waiting)) {
      return Optional.of(
          new PodTrouble(
              Reason.POD_CONFIG_ERROR,
              pod_,
              where
                  + " cannot start: "
                  + detail
                  + ". Check the Secret and ConfigMap it reads (kubectl describe pod "
                  + pod_
                  + ")",
              since(pod),
              CONFIG_GRACE));
    }
    if ("CrashLoopBackOff".equals(waiting)) {
      Optional<ContainerStateTerminated> last =
          Optional.ofNullable(container.getLastState()).map(s -> s.getTerminated());
      boolean oom = last.map(t -> "OOMKilled".equals(t.getReason())).orElse(false);
      String exit =
          last.map(
                  t ->
                      "; last exit: "
                          + Optional.ofNullable(t.getReason()).orElse("Error")
                          + " (exit code "
                          + t.getExitCode()
                          + ")")
              .orElse("");
      return Optional.of(
          new PodTrouble(
              oom ? Reason.OOM_KILLED : Reason.CRASH_LOOP,
              pod_,
              where
                  + " keeps crashing"
                  + exit
                  + (oom
                      ? ". Raise spec.resources.limits.memory"
                      : ". See kubectl logs " + pod_ + " --previous"),
              since(pod),
              CRASH_GRACE));
    }
    return Optional.empty();
  }

  /** A container of {@code pod} that runs and is not ready, since it started or last was ready. */
  static Optional<PodTrouble> notReady(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return Optional.empty();
    }
    String pod_ = pod.getMetadata().getName();
    return pod.getStatus().getContainerStatuses().stream()
        .filter(c -> c.getState() != null && c.getState().getRunning() != null)
        .filter(c -> !Boolean.TRUE.equals(c.getReady()))
        .findFirst()
        .map(
            c ->
                new PodTrouble(
                    Reason.READINESS_FAILING,
                    pod_,
                    "container "
                        + c.getName()
                        + " of pod "
                        + pod_
                        + " has run for over "
                        + NOT_READY_GRACE.toMinutes()
                        + " min without becoming ready: its readiness probe fails. See the"
                        + " probe's output in kubectl describe pod "
                        + pod_
                        + " and what the server does in kubectl logs "
                        + pod_
                        + " -c "
                        + c.getName(),
                    latest(time(c.getState().getRunning().getStartedAt()), since(pod)),
                    NOT_READY_GRACE));
  }

  private static Instant latest(Optional<Instant> a, Instant b) {
    return a.filter(t -> t.isAfter(b)).orElse(b);
  }

  private static Stream<ContainerStatus> containers(Pod pod) {
    return Stream.concat(
        Optional.ofNullable(pod.getStatus().getInitContainerStatuses()).orElse(List.of()).stream(),
        Optional.ofNullable(pod.getStatus().getContainerStatuses()).orElse(List.of()).stream());
  }

  /** When the pod last stopped being ready, else when it was created. */
  private static Instant since(Pod pod) {
    return condition(pod, "Ready")
        .flatMap(c -> time(c.getLastTransitionTime()))
        .or(() -> time(pod.getMetadata().getCreationTimestamp()))
        .orElse(Instant.EPOCH);
  }

  private static Optional<PodCondition> condition(Pod pod, String type) {
    return Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst();
  }

  private static Optional<Instant> time(String timestamp) {
    try {
      return Optional.ofNullable(timestamp).map(Instant::parse);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static String clip(String message) {
    String line =
        Optional.ofNullable(message).flatMap(m -> m.lines().findFirst()).orElse("(no message)");
    return line.length() > MAX_MESSAGE ? line.substring(0, MAX_MESSAGE - 3) + "..." : line;
  }
}
