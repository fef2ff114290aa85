package dev.cellar.plugin;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.BackupRecord;
import dev.cellar.api.v1.BackupSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.InstanceStatus;
import dev.cellar.api.v1.Phase;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code kubectl cellar status} screen, built from what the API server holds: the Database
 * (spec and the operator's status), its database pods and recent Events. Pure: no client here, so
 * the rendering is tested on objects.
 */
public final class StatusView {
  /** How many Events the screen shows (the newest). */
  static final int EVENTS = 10;

  private final Database db;
  private final List<Pod> pods;
  private final List<Event> events;
  private final Instant now;
  private final Style style;

  public StatusView(Database db, List<Pod> pods, List<Event> events, Instant now, boolean colour) {
    this.db = db;
    this.pods = pods.stream().sorted(Comparator.comparing(p -> p.getMetadata().getName())).toList();
    this.events = newest(events, EVENTS);
    this.now = now;
    this.style = new Style(colour);
  }

  /** The screen, as text. */
  public String render() {
    StringBuilder out = new StringBuilder();
    DatabaseSpec spec = db.getSpec();
    DatabaseStatus status = Optional.ofNullable(db.getStatus()).orElseGet(DatabaseStatus::new);
    String name = db.getMetadata().getName();
    out.append(style.bold("Database " + name))
        .append("  (namespace ")
        .append(db.getMetadata().getNamespace())
        .append(")\n");
    List<String[]> head = new ArrayList<>();
    String engine = spec.getEngine() == null ? "?" : spec.getEngine().value();
    String running = status.getVersion();
    head.add(
        row(
            "Engine",
            engine
                + " "
                + (running == null ? spec.getVersion() + " (not running yet)" : running)
                + (running != null && !running.equals(spec.getVersion())
                    ? " (spec asks " + spec.getVersion() + ")"
                    : "")));
    String phase = status.getPhase() == null ? "Unknown" : status.getPhase().name();
    Long generation = db.getMetadata().getGeneration();
    String stale =
        status.getObservedGeneration() != null
                && generation != null
                && status.getObservedGeneration() < generation
            ? "  (status describes generation "
                + status.getObservedGeneration()
                + " of "
                + generation
                + ")"
            : "";
    head.add(row("Phase", style.phase(phase) + stale));
    head.add(
        row(
            "Instances",
            nz(status.getReadyReplicas())
                + "/"
                + (status.getReplicas() == null ? spec.getReplicas() : status.getReplicas())
                + " ready"
                + (Boolean.TRUE.equals(spec.getHibernated()) ? ", hibernated" : "")));
    head.add(row("Primary", status.getCurrentPrimary() == null ? "-" : status.getCurrentPrimary()));
    head.add(row("Read-write", orDash(status.getEndpoint())));
    if (status.getReadOnlyEndpoint() != null) {
      head.add(row("Read-only", status.getReadOnlyEndpoint()));
    }
    head.add(
        row(
            "Credentials",
            status.getCredentialsSecret() == null
                ? "-"
                : status.getCredentialsSecret()
                    + " (Secret)"
                    + Optional.ofNullable(status.getCredentials())
                        .map(c -> c.getLastRotationTime())
                        .map(t -> ", passwords last rotated " + age(t) + " ago")
                        .orElse("")));
    if (status.getPendingAction() != null && !status.getPendingAction().isBlank()) {
      head.add(row("Action needed", style.red(status.getPendingAction())));
    }
    table(out, null, head);

    out.append('\n').append(style.bold("Conditions")).append('\n');
    List<String[]> conditions = new ArrayList<>();
    conditions.add(new String[] {"TYPE", "STATUS", "REASON", "SINCE", "MESSAGE"});
    for (Condition c :
        status.getConditions() == null ? List.<Condition>of() : status.getConditions()) {
      conditions.add(
          new String[] {
            c.getType(),
            style.condition(c.getType(), c.getStatus()),
            orDash(c.getReason()),
            age(c.getLastTransitionTime()),
            orDash(c.getMessage())
          });
    }
    if (conditions.size() == 1) {
      out.append("  none yet (the operator has not reconciled this Database)\n");
    } else {
      table(out, "  ", conditions);
    }

    out.append('\n').append(style.bold("Instances")).append('\n');
    List<String[]> instances = new ArrayList<>();
    instances.add(
        new String[] {"POD", "ROLE", "READY", "LAG", "STATUS", "RESTARTS", "NODE", "AGE"});
    for (Map<String, Object> p : instances()) {
      instances.add(
          new String[] {
            (String) p.get("name"),
            orDash((String) p.get("role")),
            Boolean.TRUE.equals(p.get("ready")) ? style.green("true") : style.red("false"),
            p.get("lagSeconds") == null ? "-" : p.get("lagSeconds") + "s",
            orDash((String) p.get("phase")),
            String.valueOf(p.getOrDefault("restarts", "-")),
            orDash((String) p.get("node")),
            orDash((String) p.get("age"))
          });
    }
    if (instances.size() == 1) {
      out.append(
          Boolean.TRUE.equals(spec.getHibernated())
              ? "  none: hibernated (kubectl cellar wake " + name + ")\n"
              : "  none\n");
    } else {
      table(out, "  ", instances);
    }

    out.append('\n').append(style.bold("Backups")).append('\n');
    List<String[]> backups = new ArrayList<>();
    BackupSpec backup = spec.getBackup();
    if (!Boolean.TRUE.equals(spec.getBackupEnabled())) {
      backups.add(row("Schedule", "off (spec.backupEnabled: false)"));
    } else if (backup != null) {
      backups.add(
          row(
              "Schedule",
              backup.getSchedule()
                  + ", keep "
                  + backup.getRetention()
                  + ", to "
                  + (backup.getObjectStore() != null
                      ? "s3://"
                          + backup.getObjectStore().getBucket()
                          + Optional.ofNullable(backup.getObjectStore().getPrefix())
                              .map(p -> "/" + p)
                              .orElse("")
                      : "volume " + ChildNames.of(name).backupClaim())
                  + (Boolean.FALSE.equals(backup.getVerify()) ? ", not verified" : ", verified")));
    }
    backups.add(row("Last", describe(status.getLastBackup())));
    String verified;
    if (status.getLastVerifiedBackup() == null) {
      verified = "none";
    } else if (status.getLastBackup() != null
        && Objects.equals(
            status.getLastBackup().getName(), status.getLastVerifiedBackup().getName())) {
      verified = style.green("yes") + ", the last backup restored into a throwaway server";
    } else {
      verified = describe(status.getLastVerifiedBackup());
    }
    backups.add(row("Last verified", verified));
    table(out, "  ", backups);

    out.append('\n').append(style.bold("Events")).append('\n');
    if (events.isEmpty()) {
      out.append("  none recent\n");
    } else {
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"AGE", "TYPE", "REASON", "OBJECT", "MESSAGE"});
      for (Event e : events) {
        rows.add(
            new String[] {
              age(eventTime(e)),
              "Warning".equals(e.getType()) ? style.yellow(e.getType()) : orDash(e.getType()),
              orDash(e.getReason()),
              e.getInvolvedObject().getKind().toLowerCase(java.util.Locale.ROOT)
                  + "/"
                  + e.getInvolvedObject().getName(),
              oneLine(e.getMessage())
            });
      }
      table(out, "  ", rows);
    }
    return out.toString();
  }

  /** The same facts as data, for {@code -o json|yaml}. */
  public Map<String, Object> data() {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("database", db);
    data.put("instances", instances());
    List<Map<String, Object>> eventData = new ArrayList<>();
    for (Event e : events) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("time", eventTime(e));
      m.put("type", e.getType());
      m.put("reason", e.getReason());
      m.put("object", e.getInvolvedObject().getKind() + "/" + e.getInvolvedObject().getName());
      m.put("message", e.getMessage());
      m.put("count", e.getCount());
      eventData.add(m);
    }
    data.put("events", eventData);
    return data;
  }

  /** One entry per database pod (from the pods, with the operator's roles), by name. */
  List<Map<String, Object>> instances() {
    Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
    List<InstanceStatus> reported =
        db.getStatus() == null || db.getStatus().getInstances() == null
            ? List.of()
            : db.getStatus().getInstances();
    for (Pod pod : pods) {
      Map<String, Object> m = new LinkedHashMap<>();
      String podName = pod.getMetadata().getName();
      m.put("name", podName);
      String role =
          Optional.ofNullable(pod.getMetadata().getLabels())
              .map(l -> l.get(Keys.ROLE))
              .orElse(null);
      if (role == null) {
        role =
            reported.stream()
                .filter(i -> podName.equals(i.getName()))
                .map(InstanceStatus::getRole)
                .findFirst()
                .orElse(null);
      }
      m.put("role", role);
      m.put("ready", ready(pod));
      // A replica's replication lag as Cellar last polled it (status.instances).
      m.put(
          "lagSeconds",
          reported.stream()
              .filter(i -> podName.equals(i.getName()))
              .map(InstanceStatus::getReplicationLagSeconds)
              .filter(Objects::nonNull)
              .findFirst()
              .orElse(null));
      m.put("phase", pod.getMetadata().getDeletionTimestamp() != null ? "Terminating" : phase(pod));
      m.put("restarts", restarts(pod));
      m.put("node", pod.getSpec() == null ? null : pod.getSpec().getNodeName());
      m.put("age", age(pod.getMetadata().getCreationTimestamp()));
      byName.put(podName, m);
    }
    for (InstanceStatus i : reported) {
      if (!byName.containsKey(i.getName())) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", i.getName());
        m.put("role", i.getRole());
        m.put("ready", false);
        m.put("phase", "Missing");
        byName.put(i.getName(), m);
      }
    }
    return new ArrayList<>(byName.values());
  }

  static boolean ready(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .filter(c -> "Ready".equals(c.getType())) // not Cellar's: the pod's own condition
            .map(PodCondition::getStatus)
            .anyMatch("True"::equals);
  }

  private static String phase(Pod pod) {
    if (pod.getStatus() == null) {
      return null;
    }
    if (pod.getStatus().getContainerStatuses() != null) {
      for (ContainerStatus c : pod.getStatus().getContainerStatuses()) {
        if (c.getState() != null && c.getState().getWaiting() != null) {
          return c.getState().getWaiting().getReason();
        }
      }
    }
    return pod.getStatus().getPhase();
  }

  private static int restarts(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return 0;
    }
    return pod.getStatus().getContainerStatuses().stream()
        .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
        .sum();
  }

  private String describe(BackupRecord b) {
    if (b == null) {
      return "none";
    }
    StringBuilder s = new StringBuilder(orDash(b.getName()));
    if (b.getCompletionTime() != null) {
      s.append(", ").append(age(b.getCompletionTime())).append(" ago");
    }
    if (b.getTrigger() != null) {
      s.append(", ").append(b.getTrigger());
    }
    if (b.getSizeBytes() != null) {
      s.append(", ").append(size(b.getSizeBytes()));
    }
    if (b.getLocation() != null) {
      s.append(", ").append(b.getLocation());
    }
    return s.toString();
  }

  static String size(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
  }

  static String eventTime(Event e) {
    if (e.getLastTimestamp() != null) {
      return e.getLastTimestamp();
    }
    if (e.getEventTime() != null && e.getEventTime().getTime() != null) {
      return e.getEventTime().getTime();
    }
    return e.getMetadata().getCreationTimestamp();
  }

  static List<Event> newest(List<Event> events, int n) {
    List<Event> sorted =
        events.stream()
            .sorted(
                Comparator.comparing(
                        (Event e) ->
                            Optional.ofNullable(instant(eventTime(e))).orElse(Instant.EPOCH))
                    // Events of the same second in the order the API server stored them.
                    .thenComparingLong(StatusView::resourceVersion))
            .toList();
    return sorted.subList(Math.max(0, sorted.size() - n), sorted.size());
  }

  private static long resourceVersion(Event e) {
    try {
      return Long.parseLong(e.getMetadata().getResourceVersion());
    } catch (RuntimeException notANumber) {
      return 0;
    }
  }

  static Instant instant(String time) {
    if (time == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(time).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** kubectl's short ages: 45s, 12m, 3h, 5d. */
  String age(String time) {
    Instant then = instant(time);
    if (then == null) {
      return "-";
    }
    return shortDuration(Duration.between(then, now));
  }

  static String shortDuration(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s < 120) {
      return s + "s";
    }
    if (s < 2 * 3600) {
      return s / 60 + "m";
    }
    if (s < 2 * 86400) {
      return s / 3600 + "h";
    }
    return s / 86400 + "d";
  }

  private static String oneLine(String s) {
    return s == null ? "-" : s.replace('\n', ' ').strip();
  }

  private static String nz(Integer i) {
    return i == null ? "0" : i.toString();
  }

  private static String orDash(String s) {
    return s == null || s.isBlank() ? "-" : s;
  }

  private static String[] row(String key, String value) {
    return new String[] {key, value};
  }

  /** Columns padded to their widest visible cell (escape codes do not count). */
  private static void table(StringBuilder out, String indent, List<String[]> rows) {
    int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
    int[] width = new int[columns];
    // Key-value tables (two columns) share one key width, so the sections line up.
    if (columns == 2) {
      width[0] = "Action needed".length();
    }
    for (String[] r : rows) {
      for (int i = 0; i < r.length - 1; i++) {
        width[i] = Math.max(width[i], Style.visible(r[i]).length());
      }
    }
    for (String[] r : rows) {
      out.append(indent == null ? "" : indent);
      for (int i = 0; i < r.length; i++) {
        out.append(r[i]);
        if (i < r.length - 1) {
          out.append(" ".repeat(width[i] - Style.visible(r[i]).length() + 2));
        }
      }
      out.append('\n');
    }
  }

  /** ANSI colours, only when asked (a terminal, and no NO_COLOR). */
  static final class Style {
    private final boolean on;

    Style(boolean on) {
      this.on = on;
    }

    static String visible(String s) {
      return s.replaceAll("\u001B\\[[0-9;]*m", "");
    }

    private String wrap(String code, String s) {
      return on ? "\u001B[" + code + "m" + s + "\u001B[0m" : s;
    }

    String bold(String s) {
      return wrap("1", s);
    }

    String red(String s) {
      return wrap("31", s);
    }

    String green(String s) {
      return wrap("32", s);
    }

    String yellow(String s) {
      return wrap("33", s);
    }

    String phase(String phase) {
      if (Phase.Ready.name().equals(phase)) {
        return green(phase);
      }
      if (Phase.Degraded.name().equals(phase) || Phase.Failed.name().equals(phase)) {
        return red(phase);
      }
      return yellow(phase);
    }

    /** Good is green, bad red: Degraded is good when False, the others when True. */
    String condition(String type, String status) {
      boolean good =
          Type.DEGRADED.value().equals(type) ? "False".equals(status) : "True".equals(status);
      if ("Unknown".equals(status)) {
        return yellow(status);
      }
      return good ? green(status) : red(status);
    }
  }
}
