package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.instance.InstanceAgent;
import dev.cellar.operator.status.ConditionSet;
import dev.cellar.operator.wiring.LeanInformers;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** What the reconciler ITs share: the operator in this JVM, one namespace per class, waits. */
abstract class ReconcilerTestBase {
  static final Duration CONVERGE = Duration.ofSeconds(90);

  /** The reconciler in this JVM, on {@code client} (which the extension closes after the class). */
  static LocalOperator<Database> operatorOn(KubernetesClient client) {
    // The Databases' cache is pruned, as CellarOperator does.
    return LocalOperator.of(
        client, new DatabaseReconciler(), c -> c.withItemStore(LeanInformers.databaseStore()));
  }

  /**
   * The reconciler in this JVM whose failover and password steps ask {@code agent} (kwok runs no
   * server to exec into).
   */
  static LocalOperator<Database> operatorOn(KubernetesClient client, InstanceAgent agent) {
    return LocalOperator.of(client, new DatabaseReconciler(c -> agent));
  }

  /**
   * An agent for kwok's pods, which run no server: every call succeeds (equal positions), so a
   * rollout's switchover completes as on real servers.
   */
  static final InstanceAgent KWOK_AGENT =
      new InstanceAgent() {
        @Override
        public OptionalLong position(String namespace, String pod) {
          return OptionalLong.of(1);
        }

        @Override
        public Optional<String> promote(String namespace, String pod) {
          return Optional.empty();
        }

        @Override
        public OptionalLong demote(String namespace, String pod) {
          return OptionalLong.of(1);
        }

        @Override
        public void restart(String namespace, String pod) {}

        @Override
        public Optional<String> applyCredentials(String namespace, String pod, String input) {
          return Optional.empty();
        }

        @Override
        public Optional<String> reloadTls(String namespace, String pod, String hash) {
          return Optional.empty();
        }
      };

  abstract LocalOperator<Database> operator();

  KubernetesClient client() {
    return operator().getKubernetesClient();
  }

  Database get(String name) {
    return operator().get(Database.class, name);
  }

  <T extends HasMetadata> T child(Class<T> type, String name) {
    return operator().get(type, name);
  }

  /** The Database's server pods, as the API server has them. */
  List<Pod> pods(String name) {
    return client()
        .pods()
        .inNamespace(operator().getNamespace())
        .withLabel(Keys.INSTANCE, name)
        .withLabel(Keys.COMPONENT, Keys.Component.DATABASE.value())
        .list()
        .getItems();
  }

  void edit(String name, Consumer<DatabaseSpec> change) {
    Database db = get(name);
    change.accept(db.getSpec());
    operator().replace(db);
  }

  /** Waits until the Database's status describes its current generation and has this phase. */
  Database awaitPhase(String name, Phase phase) {
    await(name + " " + phase)
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              Database db = get(name);
              assertThat(db.getStatus()).isNotNull();
              assertThat(db.getStatus().getObservedGeneration())
                  .isEqualTo(db.getMetadata().getGeneration());
              assertThat(db.getStatus().getPhase()).as(describe(db)).isEqualTo(phase);
            });
    return get(name);
  }

  /**
   * Waits until nothing was written for {@code idle} though reconciles keep coming: every 10 s
   * {@code versions} (resourceVersions, generations) are compared with what they were when this
   * began, and {@code touched} is annotated, an event that makes the operator reconcile.
   */
  void awaitNoWrites(
      String description,
      Supplier<List<String>> versions,
      Duration idle,
      Duration atMost,
      Class<? extends HasMetadata> touchedType,
      String touched) {
    List<String> before = versions.get();
    AtomicInteger touches = new AtomicInteger();
    await(description)
        .during(idle)
        .atMost(atMost)
        .pollInterval(Duration.ofSeconds(10))
        .until(
            () -> {
              boolean same = versions.get().equals(before);
              client()
                  .resources(touchedType)
                  .inNamespace(operator().getNamespace())
                  .withName(touched)
                  .patch(
                      PatchContext.of(PatchType.JSON_MERGE),
                      "{\"metadata\":{\"annotations\":{\"cellar.dev/test-touch\":\""
                          + touches.incrementAndGet()
                          + "\"}}}");
              return same;
            });
  }

  boolean hasEvent(String database, String reason) {
    return client().v1().events().inNamespace(operator().getNamespace()).list().getItems().stream()
        .anyMatch(
            e -> reason.equals(e.getReason()) && database.equals(e.getInvolvedObject().getName()));
  }

  /**
   * The namespace's events about these objects, oldest first, with who reported them: a failure
   * that a pod was replaced then says whether the StatefulSet controller or Cellar did it.
   */
  String eventsAbout(String... names) {
    Set<String> wanted = Set.of(names);
    return client().v1().events().inNamespace(operator().getNamespace()).list().getItems().stream()
        .filter(e -> wanted.contains(e.getInvolvedObject().getName()))
        .sorted(Comparator.comparing(e -> e.getMetadata().getCreationTimestamp()))
        .map(
            e ->
                e.getMetadata().getCreationTimestamp()
                    + " "
                    + e.getInvolvedObject().getKind()
                    + "/"
                    + e.getInvolvedObject().getName()
                    + " "
                    + e.getReason()
                    + ": "
                    + e.getMessage()
                    + " ("
                    + Optional.ofNullable(e.getSource())
                        .map(EventSource::getComponent)
                        .orElse(e.getReportingComponent())
                    + ")")
        .collect(Collectors.joining("\n  ", "\n  ", ""));
  }

  static String describe(Database db) {
    return db.getStatus() == null ? "no status" : db.getStatus().getConditions().toString();
  }

  static Condition condition(Database db, Type type) {
    return ConditionSet.find(db.getStatus().getConditions(), type).orElseThrow();
  }
}
