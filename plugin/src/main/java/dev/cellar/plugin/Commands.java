package dev.cellar.plugin;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.InstanceStatus;
import dev.cellar.api.v1.Phase;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The commands. Each checks its arguments, talks to the API server, prints what it did. */
final class Commands {
  /** A command that could not do its job; the message says why (exit code 1). */
  static final class Failure extends Exception {
    Failure(String message) {
      super(message);
    }
  }

  private final Args args;
  private final PrintStream out;
  private final PrintStream err;
  private final boolean terminal;
  private final boolean colour;
  private final Map<String, String> env;
  private KubernetesClient client;
  private String namespace;
  private Kube kube;

  Commands(
      Args args,
      PrintStream out,
      PrintStream err,
      boolean terminal,
      boolean colour,
      Map<String, String> env) {
    this.args = args;
    this.out = out;
    this.err = err;
    this.terminal = terminal;
    this.colour = colour;
    this.env = env;
  }

  int run() throws Exception {
    String command = args.command();
    switch (command) {
      case "status" -> args.expect(List.of("NAME"), Set.of("output"));
      case "psql", "mysql", "mariadb" -> args.expect(List.of("NAME"), Set.of("replica", "--"));
      case "backup" -> args.expect(List.of("NAME"), Set.of("wait", "timeout", "verify"));
      case "restore" ->
          args.expect(
              List.of("NAME"),
              Set.of(
                  "to",
                  "backup",
                  "source",
                  "engine",
                  "version",
                  "storage",
                  "storage-class",
                  "dry-run",
                  "output"));
      case "promote" -> args.expect(List.of("NAME", "POD"), Set.of("wait", "timeout"));
      case "restart" -> args.expect(List.of("NAME"), Set.of("timeout"));
      case "hibernate", "wake" -> args.expect(List.of("NAME"), Set.of("wait", "timeout"));
      case "logs" -> args.expect(List.of("NAME"), Set.of("follow", "tail", "container"));
      case "report" -> args.expect(List.of("NAME"), Set.of("file"));
      default -> throw new Args.UsageException("unknown command " + command);
    }
    args.output();
    args.number("tail");
    args.number("timeout");
    kube = Kube.of(args);
    Config config = kube.config();
    namespace = kube.namespace(config);
    timing("kubeconfig read");
    try (KubernetesClient c = kube.client(config)) {
      client = c;
      timing("client built");
      String name = args.positionals().get(0);
      return switch (command) {
        case "status" -> status(name);
        case "psql", "mysql", "mariadb" -> client(name, command);
        case "backup" -> backup(name);
        case "restore" -> restore(name);
        case "promote" -> promote(name, args.positionals().get(1));
        case "restart" -> restart(name);
        case "hibernate" -> hibernation(name, true);
        case "wake" -> hibernation(name, false);
        case "logs" -> logs(name);
        case "report" -> report(name);
        default -> throw new IllegalStateException(command);
      };
    }
  }

  // --- status

  private int status(String name) throws Exception {
    Database db = require(name);
    timing("Database read");
    List<Pod> pods = databasePods(name);
    timing("pods listed");
    List<Event> events = events(name, pods);
    timing("Events listed");
    StatusView view = new StatusView(db, pods, events, Instant.now(), colour);
    print(view.data(), view::render);
    timing("printed");
    return 0;
  }

  private final long started = System.nanoTime();

  /** With CELLAR_PLUGIN_TIMING=true, how long each step took (milliseconds since the JVM began). */
  private void timing(String step) {
    if ("true".equals(env.get("CELLAR_PLUGIN_TIMING"))) {
      err.printf(
          "timing: %s at %d ms (JVM up %d ms)%n",
          step,
          (System.nanoTime() - started) / 1_000_000,
          java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime());
    }
  }

  private void print(Object data, Supplier<String> text) throws Args.UsageException, IOException {
    switch (args.output()) {
      case "json" ->
          out.println(new ObjectMapper().readTree(Serialization.asJson(data)).toPrettyString());
      case "yaml" -> out.print(Serialization.asYaml(data));
      default -> out.print(text.get());
    }
  }

  // --- psql, mysql

  private int client(String name, String command) throws Exception {
    Database db = require(name);
    Engine engine = db.getSpec().getEngine();
    String fits = ClientSession.clientCommand(engine);
    if (!fits.equals(command) && !(command.equals("mariadb") && engine == Engine.MARIADB)) {
      throw new Failure(name + " is a " + engine + " Database: use kubectl cellar " + fits);
    }
    String pod = args.flag("replica") ? readyReplica(db) : primary(db);
    List<String> argv =
        ClientSession.command(
            env.getOrDefault("KUBECTL", "kubectl"),
            kube.kubectlFlags(namespace),
            pod,
            engine,
            terminal,
            args.passthrough());
    if (terminal) {
      err.println(
          "connecting to " + pod + " (" + (args.flag("replica") ? "replica" : "primary") + ")");
    }
    Process process = new ProcessBuilder(argv).inheritIO().start();
    return process.waitFor();
  }

  private String primary(Database db) throws Failure {
    String name = db.getMetadata().getName();
    String primary = db.getStatus() == null ? null : db.getStatus().getCurrentPrimary();
    if (primary == null) {
      primary =
          databasePods(name).stream()
              .filter(p -> Keys.ROLE_PRIMARY.equals(label(p, Keys.ROLE)))
              .map(p -> p.getMetadata().getName())
              .findFirst()
              .orElseThrow(
                  () ->
                      new Failure(
                          name + " has no primary yet (kubectl cellar status " + name + ")"));
    }
    Pod pod = client.pods().inNamespace(namespace).withName(primary).get();
    if (pod == null || !StatusView.ready(pod)) {
      throw new Failure(
          "the primary " + primary + " is not ready (kubectl cellar status " + name + ")");
    }
    return primary;
  }

  private String readyReplica(Database db) throws Failure {
    String name = db.getMetadata().getName();
    String primary = db.getStatus() == null ? null : db.getStatus().getCurrentPrimary();
    return databasePods(name).stream()
        .filter(StatusView::ready)
        .filter(p -> !p.getMetadata().getName().equals(primary))
        .filter(p -> !Keys.ROLE_PRIMARY.equals(label(p, Keys.ROLE)))
        .map(p -> p.getMetadata().getName())
        .sorted()
        .findFirst()
        .orElseThrow(() -> new Failure(name + " has no ready replica"));
  }

  // --- backup

  private int backup(String name) throws Exception {
    Database db = require(name);
    if (!Boolean.TRUE.equals(db.getSpec().getBackupEnabled())) {
      throw new Failure(
          "backups are off for " + name + " (spec.backupEnabled: false); turn them on first");
    }
    String token = String.valueOf(Instant.now().getEpochSecond());
    if (args.flag("verify")) {
      return verify(name, token);
    }
    Optional<Database> waited =
        request(
            name,
            Keys.BACKUP_NOW_ANNOTATION,
            token,
            "backup",
            Boolean.TRUE.equals(db.getSpec().getHibernated())
                ? name + " is hibernated: the backup runs once it is woken"
                : null);
    if (waited.isEmpty()) {
      return 0;
    }
    Database done = waited.get();
    var last = done.getStatus() == null ? null : done.getStatus().getLastBackup();
    Instant asked = Instant.ofEpochSecond(Long.parseLong(token));
    Instant ended = last == null ? null : StatusView.instant(last.getCompletionTime());
    if (ended != null && !ended.isBefore(asked.minusSeconds(1))) {
      out.println(
          "  done: "
              + last.getName()
              + (last.getLocation() == null ? "" : " at " + last.getLocation())
              + (last.getSizeBytes() == null ? "" : ", " + StatusView.size(last.getSizeBytes())));
      return 0;
    }
    throw new Failure(
        "the backup ended without a new dump: "
            + condition(done, Type.BACKUP_READY.value())
            + " (kubectl cellar status "
            + name
            + ")");
  }

  /**
   * The newest stored dump read back and restored into a throwaway server again (it may have been
   * damaged since it was written); with --wait, BackupReady says how it went.
   */
  private int verify(String name, String token) throws Exception {
    Optional<Database> waited =
        request(name, Keys.VERIFY_NOW_ANNOTATION, token, "verification of the newest dump", null);
    if (waited.isEmpty()) {
      return 0;
    }
    Database done = waited.get();
    String result = condition(done, Type.BACKUP_READY.value());
    if (result.startsWith(Type.BACKUP_READY.value() + " True ")) {
      out.println("  done: " + result);
      return 0;
    }
    throw new Failure("the verification failed: " + result);
  }

  /**
   * Asks Cellar for WHAT with ANNOTATION=VALUE on NAME and says so (and NOTE, if any); with --wait,
   * returns NAME once Cellar has taken the request away, else nothing.
   */
  private Optional<Database> request(
      String name, String annotation, String value, String what, String note) throws Exception {
    annotate(name, annotation, value);
    out.println(
        "database.cellar.dev/"
            + name
            + " "
            + what
            + " requested ("
            + annotation
            + "="
            + value
            + ")");
    if (note != null) {
      out.println("  " + note);
    }
    if (!args.flag("wait")) {
      out.println("  follow it with: kubectl cellar status " + name);
      return Optional.empty();
    }
    return Optional.of(
        await(
            "the " + what + " of " + name,
            () -> {
              Database d = database(name);
              return d != null && !value.equals(annotation(d, annotation)) ? d : null;
            }));
  }

  // --- restore

  private int restore(String name) throws Exception {
    String to =
        args.option("to").orElseThrow(() -> new Args.UsageException("restore needs --to NEW"));
    Database source = database(name);
    Database restored =
        Restores.newDatabase(
            namespace,
            name,
            source,
            new Restores.Request(
                to,
                args.option("backup").orElse(null),
                args.option("source").orElse(null),
                args.option("engine").orElse(null),
                args.option("version").orElse(null),
                args.option("storage").orElse(null),
                args.option("storage-class").orElse(null)));
    if (args.flag("dry-run")) {
      String output = args.output();
      out.print(
          output.equals("json")
              ? new ObjectMapper().readTree(Serialization.asJson(restored)).toPrettyString() + "\n"
              : Serialization.asYaml(restored));
      return 0;
    }
    if (database(to) != null) {
      throw new Failure("Database " + to + " exists already in namespace " + namespace);
    }
    Database created = client.resource(restored).create();
    var from = created.getSpec().getBootstrap().getFromBackup();
    if (!args.output().equals("text")) {
      print(created, () -> "");
      return 0;
    }
    out.println(
        "database.cellar.dev/"
            + to
            + " created from "
            + name
            + "'s "
            + ("latest".equals(from.getBackup()) ? "latest dump" : "dump " + from.getBackup())
            + " ("
            + (from.getSource() == dev.cellar.api.v1.FromBackupSpec.BackupSource.VOLUME
                ? "volume " + ChildNames.of(name).backupClaim()
                : "s3://" + from.getObjectStore().getBucket())
            + ")");
    out.println("  it becomes Ready once the restore succeeded: kubectl cellar status " + to);
    return 0;
  }

  // --- promote

  private int promote(String name, String podArg) throws Exception {
    Database db = require(name);
    String target = podArg.matches("[0-9]+") ? name + "-" + podArg : podArg;
    String primary = db.getStatus() == null ? null : db.getStatus().getCurrentPrimary();
    Map<String, Boolean> candidates = new java.util.TreeMap<>();
    List<Pod> pods = databasePods(name);
    pods.forEach(p -> candidates.put(p.getMetadata().getName(), StatusView.ready(p)));
    if (pods.isEmpty() && db.getStatus() != null && db.getStatus().getInstances() != null) {
      for (InstanceStatus i : db.getStatus().getInstances()) {
        candidates.put(i.getName(), Boolean.TRUE.equals(i.getReady()));
      }
    }
    if (!candidates.containsKey(target)) {
      throw new Failure(target + " is not a pod of " + name + "; its pods: " + candidates.keySet());
    }
    if (target.equals(primary)) {
      throw new Failure(target + " is the primary already");
    }
    if (!candidates.get(target)) {
      throw new Failure(target + " is not ready: a switchover needs a ready replica");
    }
    String underWay = annotation(db, Keys.SWITCHOVER_ANNOTATION);
    if (underWay != null) {
      throw new Failure("a switchover to " + underWay + " is under way already");
    }
    Instant asked = Instant.now().minusSeconds(1);
    Optional<Database> waited =
        request(name, Keys.SWITCHOVER_ANNOTATION, target, "switchover to " + target, null);
    if (waited.isEmpty()) {
      return 0;
    }
    Database done = waited.get();
    Optional<Event> outcome =
        events(name, List.of()).stream()
            .filter(
                e ->
                    Set.of(Reason.SWITCHED_OVER.value(), Reason.SWITCHOVER_FAILED.value())
                        .contains(e.getReason()))
            .filter(
                e ->
                    Optional.ofNullable(StatusView.instant(StatusView.eventTime(e)))
                        .map(t -> !t.isBefore(asked))
                        .orElse(false))
            .reduce((a, b) -> b);
    String now = done.getStatus() == null ? null : done.getStatus().getCurrentPrimary();
    out.println(
        "  "
            + outcome.map(e -> e.getReason() + ": " + e.getMessage()).orElse("done")
            + "; primary now "
            + now);
    return target.equals(now) ? 0 : 1;
  }

  // --- restart

  private int restart(String name) throws Exception {
    Database db = require(name);
    if (Boolean.TRUE.equals(db.getSpec().getHibernated())) {
      throw new Failure(
          name + " is hibernated: no pod to restart (kubectl cellar wake " + name + ")");
    }
    List<Pod> pods = databasePods(name);
    if (pods.isEmpty()) {
      throw new Failure(name + " has no pods");
    }
    String primary =
        Optional.ofNullable(db.getStatus())
            .map(s -> s.getCurrentPrimary())
            .orElseGet(
                () ->
                    pods.stream()
                        .filter(p -> Keys.ROLE_PRIMARY.equals(label(p, Keys.ROLE)))
                        .map(p -> p.getMetadata().getName())
                        .findFirst()
                        .orElse(name + "-0"));
    List<String> order =
        restartOrder(pods.stream().map(p -> p.getMetadata().getName()).toList(), primary);
    for (String podName : order) {
      Pod pod = client.pods().inNamespace(namespace).withName(podName).get();
      if (pod == null) {
        continue;
      }
      String uid = pod.getMetadata().getUid();
      Instant start = Instant.now();
      out.println(
          "restarting " + podName + (podName.equals(primary) ? " (primary, last)" : " (replica)"));
      client.pods().inNamespace(namespace).withName(podName).delete();
      await(
          podName + " to come back ready",
          () -> {
            Pod p = client.pods().inNamespace(namespace).withName(podName).get();
            return p != null
                    && !uid.equals(p.getMetadata().getUid())
                    && p.getMetadata().getDeletionTimestamp() == null
                    && StatusView.ready(p)
                ? p
                : null;
          });
      out.println(
          "  "
              + podName
              + " ready again after "
              + Duration.between(start, Instant.now()).toSeconds()
              + " s");
    }
    Database after = database(name);
    String nowPrimary =
        after == null || after.getStatus() == null ? null : after.getStatus().getCurrentPrimary();
    out.println(
        "database.cellar.dev/"
            + name
            + " restarted ("
            + order.size()
            + " pods); primary now "
            + nowPrimary
            + (Objects.equals(nowPrimary, primary)
                ? ""
                : " (it failed over while " + primary + " restarted)"));
    return 0;
  }

  /** Replicas first (by name), the primary last. */
  static List<String> restartOrder(List<String> pods, String primary) {
    List<String> order =
        new ArrayList<>(pods.stream().filter(p -> !p.equals(primary)).sorted().toList());
    if (pods.contains(primary)) {
      order.add(primary);
    }
    return order;
  }

  // --- hibernate, wake

  private int hibernation(String name, boolean hibernate) throws Exception {
    Database db = require(name);
    boolean now = Boolean.TRUE.equals(db.getSpec().getHibernated());
    String verb = hibernate ? "hibernated" : "woken";
    if (now == hibernate) {
      out.println(
          "database.cellar.dev/"
              + name
              + " is "
              + (hibernate ? "hibernated" : "awake")
              + " already");
    } else {
      resource(name)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"spec\":{\"hibernated\":" + hibernate + "}}");
      out.println(
          "database.cellar.dev/" + name + " " + verb + " (spec.hibernated: " + hibernate + ")");
    }
    if (!args.flag("wait")) {
      return 0;
    }
    Phase want = hibernate ? Phase.Hibernated : Phase.Ready;
    await(
        name + " to be " + want,
        () -> {
          Database d = database(name);
          return d != null
                  && d.getStatus() != null
                  && Objects.equals(
                      d.getStatus().getObservedGeneration(), d.getMetadata().getGeneration())
                  && d.getStatus().getPhase() != null
                  && d.getStatus().getPhase() == want
              ? d
              : null;
        });
    out.println("  " + name + " is " + want);
    return 0;
  }

  // --- logs

  private int logs(String name) throws Exception {
    require(name);
    List<Pod> pods =
        client
            .pods()
            .inNamespace(namespace)
            .withLabel(Keys.INSTANCE, name)
            .list()
            .getItems()
            .stream()
            .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
            .toList();
    if (pods.isEmpty()) {
      throw new Failure(name + " has no pods");
    }
    Integer tail = args.number("tail").map(Long::intValue).orElse(null);
    String only = args.option("container").orElse(null);
    List<String[]> targets = new ArrayList<>();
    for (Pod pod : pods) {
      for (Container c : pod.getSpec().getContainers()) {
        if (only == null || only.equals(c.getName())) {
          targets.add(new String[] {pod.getMetadata().getName(), c.getName()});
        }
      }
    }
    if (targets.isEmpty()) {
      throw new Failure("no container " + only + " in " + name + "'s pods");
    }
    if (args.flag("follow")) {
      return follow(targets, tail);
    }
    int failed = 0;
    for (String[] t : targets) {
      String prefix = "[" + t[0] + "/" + t[1] + "] ";
      try {
        PodResource pod = client.pods().inNamespace(namespace).withName(t[0]);
        String log =
            tail == null
                ? pod.inContainer(t[1]).getLog()
                : pod.inContainer(t[1]).tailingLines(tail).getLog();
        if (log != null && !log.isEmpty()) {
          for (String line : log.split("\n", -1)) {
            if (!line.isEmpty()) {
              out.println(prefix + line);
            }
          }
        }
      } catch (KubernetesClientException e) {
        failed++;
        err.println(prefix + "no log: " + describe(e));
      }
    }
    return failed == targets.size() ? 1 : 0;
  }

  private int follow(List<String[]> targets, Integer tail) throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    List<LogWatch> watches = new ArrayList<>();
    for (String[] t : targets) {
      String prefix = "[" + t[0] + "/" + t[1] + "] ";
      var container = client.pods().inNamespace(namespace).withName(t[0]).inContainer(t[1]);
      LogWatch watch;
      try {
        watch = tail == null ? container.watchLog() : container.tailingLines(tail).watchLog();
      } catch (KubernetesClientException e) {
        err.println(prefix + "no log: " + describe(e));
        continue;
      }
      watches.add(watch);
      Thread thread =
          new Thread(
              () -> {
                try (BufferedReader reader =
                    new BufferedReader(
                        new InputStreamReader(watch.getOutput(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = reader.readLine()) != null) {
                    synchronized (out) {
                      out.println(prefix + line);
                    }
                  }
                } catch (IOException e) {
                  err.println(prefix + "log ended: " + e.getMessage());
                }
              },
              "log-" + t[0] + "-" + t[1]);
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    watches.forEach(LogWatch::close);
    return threads.isEmpty() ? 1 : 0;
  }

  // --- report

  private int report(String name) throws Exception {
    Database db = require(name);
    Path file =
        Path.of(
            args.option("file")
                .orElse(
                    "cellar-report-"
                        + name
                        + "-"
                        + DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                            .withZone(ZoneOffset.UTC)
                            .format(Instant.now())
                        + ".zip"));
    ReportWriter.Summary summary = new ReportWriter(client, namespace, db).write(file);
    out.println(
        "wrote "
            + file
            + " ("
            + summary.objects()
            + " objects, "
            + summary.events()
            + " Events, "
            + summary.logs()
            + " logs; Secret values redacted)");
    return 0;
  }

  // --- shared

  private Resource<Database> resource(String name) {
    return client.resources(Database.class).inNamespace(namespace).withName(name);
  }

  private Database database(String name) {
    return resource(name).get();
  }

  private Database require(String name) throws Failure {
    Database db = database(name);
    if (db == null) {
      throw new Failure("Database " + name + " not found in namespace " + namespace);
    }
    return db;
  }

  private void annotate(String name, String key, String value) {
    String patch =
        "{\"metadata\":{\"annotations\":{"
            + Serialization.asJson(key)
            + ":"
            + Serialization.asJson(value)
            + "}}}";
    resource(name).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  static String annotation(Database db, String key) {
    return Optional.ofNullable(db.getMetadata().getAnnotations()).map(a -> a.get(key)).orElse(null);
  }

  private static String label(Pod pod, String key) {
    return Optional.ofNullable(pod.getMetadata().getLabels()).map(l -> l.get(key)).orElse(null);
  }

  private static String condition(Database db, String type) {
    if (db.getStatus() == null || db.getStatus().getConditions() == null) {
      return type + " unknown";
    }
    return db.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .map(c -> type + " " + c.getStatus() + " " + c.getReason() + ": " + c.getMessage())
        .findFirst()
        .orElse(type + " unknown");
  }

  List<Pod> databasePods(String name) {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel(Keys.INSTANCE, name)
        .withLabel(Keys.COMPONENT, Keys.Component.DATABASE.value())
        .list()
        .getItems();
  }

  /** The Events of the Database and its children (pods included), oldest first. */
  List<Event> events(String name, List<Pod> pods) {
    return events(client, namespace, name);
  }

  static List<Event> events(KubernetesClient client, String namespace, String name) {
    Pattern children = childNames(name);
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> e.getInvolvedObject() != null && e.getInvolvedObject().getName() != null)
        .filter(e -> children.matcher(e.getInvolvedObject().getName()).matches())
        .toList();
  }

  /** The names of a Database's objects: itself, its pods, Services, volumes, Secret, Jobs. */
  static Pattern childNames(String name) {
    ChildNames names = ChildNames.of(name);
    // The StatefulSet (and the Services, PDB and PodMonitor of the same name), its pods and their
    // data claims, the children named by a suffix, and the backup CronJob with its Jobs.
    String pod = Pattern.quote(names.statefulSet()) + "-[0-9]+";
    String suffixed =
        Stream.of(
                names.readOnlyService(),
                names.headlessService(),
                names.configMap(),
                names.credentialsSecret(),
                names.backupClaim())
            .map(Pattern::quote)
            .collect(Collectors.joining("|"));
    return Pattern.compile(
        "^("
            + Pattern.quote(names.statefulSet())
            + "|("
            + Pattern.quote(ChildNames.DATA_VOLUME + "-")
            + ")?"
            + pod
            + "|"
            + suffixed
            + "|"
            + Pattern.quote(names.backupCronJob())
            + "(-.*)?)$");
  }

  /** Polls {@code check} every second until it returns non-null, for at most --timeout. */
  private <T> T await(String what, Supplier<T> check)
      throws Failure, InterruptedException, Args.UsageException {
    long seconds = args.number("timeout").orElse(600L);
    Instant deadline = Instant.now().plusSeconds(seconds);
    while (true) {
      T value = check.get();
      if (value != null) {
        return value;
      }
      if (Instant.now().isAfter(deadline)) {
        throw new Failure("gave up waiting for " + what + " after " + seconds + " s");
      }
      Thread.sleep(1000);
    }
  }

  static String describe(KubernetesClientException e) {
    if (e.getStatus() != null && e.getStatus().getMessage() != null) {
      return e.getStatus().getMessage();
    }
    Throwable cause = e;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return e.getMessage() + (cause != e ? " (" + cause + ")" : "");
  }
}
