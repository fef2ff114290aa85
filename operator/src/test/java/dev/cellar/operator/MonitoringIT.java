package dev.cellar.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.MonitoringSpec;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.dependent.PodMonitorDependent;
import dev.cellar.operator.prometheus.PodMonitor;
import dev.cellar.testkit.LocalCluster;
import dev.cellar.testkit.LocalOperator;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.processing.dependent.workflow.CRDPresentActivationCondition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * spec.monitoring on kwok, where no server runs: the exporter sidecar of each engine, its account's
 * Secret (whose password appears nowhere else), the metrics port on the pods, the headless Service
 * and the NetworkPolicy, and all of it gone but the Secret when monitoring is turned off; a
 * PodMonitor where the Prometheus Operator's CRD is installed (this class installs a reduced one
 * and removes it after). Cluster-wide: every operator looks that CRD up, and one in another test
 * JVM would start making PodMonitors and then fail its reconciles while the CRD goes, so this class
 * runs alone (operator/pom.xml).
 */
@Tag("cluster-wide")
class MonitoringIT extends ReconcilerTestBase {
  static final KubernetesClient client = LocalCluster.get().newClient();

  // Turning monitoring off rolls a 2-pod Database: Cellar switches over before the primary's
  // pod goes, which needs an agent (kwok's pods run no server).
  @RegisterExtension static LocalOperator<Database> operator = operatorOn(client, KWOK_AGENT);

  @Override
  LocalOperator<Database> operator() {
    return operator;
  }

  static DatabaseSpec spec(Engine engine, String version, int replicas) {
    DatabaseSpec spec = new DatabaseSpec(engine, version, "1Gi");
    spec.setReplicas(replicas);
    spec.setBackupEnabled(false);
    return spec;
  }

  static String value(Secret secret, String key) {
    return new String(
        Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }

  static List<String> names(List<Container> containers) {
    return containers.stream().map(Container::getName).toList();
  }

  static Container container(StatefulSet sts, String name) {
    return sts.getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  static Map<String, EnvVar> env(Container container) {
    return container.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e));
  }

  static Map<String, Integer> ports(Service service) {
    return service.getSpec().getPorts().stream()
        .collect(Collectors.toMap(ServicePort::getName, ServicePort::getPort));
  }

  static void fromMonitoringSecret(EnvVar var, String db, String key) {
    assertThat(var.getValue()).as(var.getName()).isNull();
    assertThat(var.getValueFrom().getSecretKeyRef().getName()).isEqualTo(db + "-monitoring");
    assertThat(var.getValueFrom().getSecretKeyRef().getKey()).isEqualTo(key);
  }

  @Test
  void aPostgresDatabaseRunsTheExporterWithItsOwnAccountUntilMonitoringIsTurnedOff() {
    String name = "metered";
    operator.create(new Database(null, name, spec(Engine.POSTGRESQL, "16", 2)));
    awaitPhase(name, Phase.Ready);

    Secret secret = child(Secret.class, name + "-monitoring");
    assertThat(secret.getData()).containsOnlyKeys("monitoring-user", "monitoring-password");
    assertThat(value(secret, "monitoring-user")).isEqualTo("cellar_monitor");
    String password = value(secret, "monitoring-password");
    assertThat(password).hasSize(32);

    StatefulSet sts = child(StatefulSet.class, name);
    assertThat(names(sts.getSpec().getTemplate().getSpec().getContainers()))
        .containsExactly("database", "exporter");
    Container exporter = container(sts, "exporter");
    assertThat(exporter.getImage()).startsWith("quay.io/prometheuscommunity/postgres-exporter:v");
    assertThat(exporter.getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("metrics");
              assertThat(p.getContainerPort()).isEqualTo(9187);
            });
    Map<String, EnvVar> env = env(exporter);
    // TLS is on by default: the exporter encrypts its local connection too.
    assertThat(env.get("DATA_SOURCE_URI").getValue())
        .isEqualTo("127.0.0.1:5432/postgres?sslmode=require");
    fromMonitoringSecret(env.get("DATA_SOURCE_USER"), name, "monitoring-user");
    fromMonitoringSecret(env.get("DATA_SOURCE_PASS"), name, "monitoring-password");
    assertThat(exporter.getResources().getLimits()).containsKeys("cpu", "memory");
    // The database container gets the account, for primary-setup.sh to create.
    Map<String, EnvVar> dbEnv = env(container(sts, "database"));
    fromMonitoringSecret(dbEnv.get("CELLAR_MONITORING_USER"), name, "monitoring-user");
    fromMonitoringSecret(dbEnv.get("CELLAR_MONITORING_PASSWORD"), name, "monitoring-password");
    assertThat(Serialization.asJson(sts)).doesNotContain(password);

    assertThat(ports(child(Service.class, name + "-headless")))
        .isEqualTo(Map.of("db", 5432, "metrics", 9187));
    assertThat(ports(child(Service.class, name))).isEqualTo(Map.of("db", 5432));
    NetworkPolicy np = child(NetworkPolicy.class, name);
    assertThat(np.getSpec().getIngress()).hasSize(2);
    assertThat(np.getSpec().getIngress().get(1).getFrom()).isNullOrEmpty();
    assertThat(np.getSpec().getIngress().get(1).getPorts().get(0).getPort().getIntVal())
        .isEqualTo(9187);
    await("pods with the metrics port")
        .atMost(CONVERGE)
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .pods()
                            .inNamespace(operator.getNamespace())
                            .list()
                            .getItems()
                            .stream()
                            .filter(p -> p.getMetadata().getName().startsWith(name + "-"))
                            .map(MonitoringIT::metricsPort)
                            .toList())
                    .containsExactly(9187, 9187));

    // Off: the sidecar, the Service port and the policy rule go; the account's Secret stays as it
    // was, so turning monitoring on again needs no new password.
    String secretVersion = secret.getMetadata().getResourceVersion();
    edit(name, s -> s.setMonitoring(new MonitoringSpec(false, null)));
    awaitPhase(name, Phase.Ready);
    await("exporter removed")
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              StatefulSet off = child(StatefulSet.class, name);
              assertThat(names(off.getSpec().getTemplate().getSpec().getContainers()))
                  .containsExactly("database");
              assertThat(ports(child(Service.class, name + "-headless")))
                  .isEqualTo(Map.of("db", 5432));
              assertThat(child(NetworkPolicy.class, name).getSpec().getIngress()).hasSize(1);
            });
    assertThat(child(Secret.class, name + "-monitoring").getMetadata().getResourceVersion())
        .isEqualTo(secretVersion);
  }

  /** The Prometheus Operator's PodMonitor CRD, reduced to what the API server needs to store. */
  static final String POD_MONITOR_CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: podmonitors.monitoring.coreos.com
      spec:
        group: monitoring.coreos.com
        scope: Namespaced
        names: {plural: podmonitors, singular: podmonitor, kind: PodMonitor, listKind: PodMonitorList}
        versions:
          - name: v1
            served: true
            storage: true
            schema:
              openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
      """;

  /**
   * Removes the CRD and waits until it is gone: a CRD being deleted is still found for a moment
   * (its objects go first), and a later class's operator that saw it then registered a PodMonitor
   * informer for a type the API server no longer serves (every reconcile failed "Not Found").
   */
  @AfterAll
  static void removePodMonitorCrd() {
    deletePodMonitorCrd();
    CRDPresentActivationCondition.clearState();
  }

  static void deletePodMonitorCrd() {
    client.apiextensions().v1().customResourceDefinitions().withName(CRD_NAME).delete();
    await("PodMonitor CRD gone")
        .atMost(CONVERGE)
        .until(
            () ->
                client.apiextensions().v1().customResourceDefinitions().withName(CRD_NAME).get()
                    == null);
  }

  static final String CRD_NAME = "podmonitors.monitoring.coreos.com";

  @Test
  void withThePrometheusOperatorsCrdEachMonitoredDatabaseHasAPodMonitor() {
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(Serialization.unmarshal(POD_MONITOR_CRD, CustomResourceDefinition.class))
        .serverSideApply();
    await("PodMonitor CRD established")
        .atMost(CONVERGE)
        .until(
            () ->
                LocalOperator.established(
                    client
                        .apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .withName(CRD_NAME)
                        .get()));
    // Forget what earlier reconciles (other classes in this JVM) found about the CRD.
    CRDPresentActivationCondition.clearState();

    String name = "scraped";
    operator.create(new Database(null, name, spec(Engine.POSTGRESQL, "16", 1)));
    awaitPhase(name, Phase.Ready);
    await("PodMonitor")
        .atMost(CONVERGE)
        .untilAsserted(() -> assertThat(child(PodMonitor.class, name)).isNotNull());
    PodMonitor monitor = child(PodMonitor.class, name);
    assertThat(monitor.getSpec().getSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/instance", name)
        .containsEntry("app.kubernetes.io/component", "database");
    assertThat(monitor.getSpec().getPodMetricsEndpoints())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getPort()).isEqualTo("metrics");
              assertThat(e.getPath()).isEqualTo("/metrics");
            });
    assertThat(monitor.getMetadata().getOwnerReferences()).singleElement();

    // Converged: a reconcile for another reason (a backup setting) leaves the PodMonitor as it is.
    String written = monitor.getMetadata().getResourceVersion();
    edit(name, s -> s.setBackupEnabled(true));
    awaitPhase(name, Phase.Ready);
    await("CronJob created")
        .atMost(CONVERGE)
        .until(() -> child(CronJob.class, name + "-backup") != null);
    assertThat(child(PodMonitor.class, name).getMetadata().getResourceVersion())
        .as("no write to a converged PodMonitor")
        .isEqualTo(written);

    // Monitoring off: the PodMonitor goes.
    edit(name, s -> s.setMonitoring(new MonitoringSpec(false, null)));
    await("PodMonitor removed").atMost(CONVERGE).until(() -> child(PodMonitor.class, name) == null);

    // The Prometheus Operator uninstalled while Cellar runs: within the CRD's recheck (a minute;
    // CRD_RECHECK_SECONDS, which operator/pom.xml shortens) Cellar stops asking for PodMonitors,
    // and a monitored Database made meanwhile becomes Ready.
    deletePodMonitorCrd();
    String after = "after-uninstall";
    operator.create(new Database(null, after, spec(Engine.POSTGRESQL, "16", 1)));
    await(after + " Ready without the PodMonitor CRD")
        .atMost(CONVERGE.plus(PodMonitorDependent.PrometheusOperatorPresent.recheck()))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              Database db = get(after);
              assertThat(db.getStatus()).isNotNull();
              assertThat(db.getStatus().getPhase()).as(describe(db)).isEqualTo(Phase.Ready);
            });
  }

  static int metricsPort(Pod pod) {
    return pod.getSpec().getContainers().stream()
        .flatMap(c -> c.getPorts().stream())
        .filter(p -> "metrics".equals(p.getName()))
        .map(ContainerPort::getContainerPort)
        .findFirst()
        .orElse(-1);
  }

  @Test
  void aMariaDbDatabaseRunsMysqldExporterFromTheImageItNames() {
    String name = "metered-maria";
    DatabaseSpec spec = spec(Engine.MARIADB, "11.4", 1);
    spec.setMonitoring(new MonitoringSpec(true, "mirror.local/mysqld-exporter:v0.15.1"));
    operator.create(new Database(null, name, spec));
    awaitPhase(name, Phase.Ready);

    StatefulSet sts = child(StatefulSet.class, name);
    Container exporter = container(sts, "exporter");
    assertThat(exporter.getImage()).isEqualTo("mirror.local/mysqld-exporter:v0.15.1");
    assertThat(exporter.getPorts().get(0).getContainerPort()).isEqualTo(9104);
    assertThat(exporter.getArgs())
        .contains(
            "--mysqld.address=127.0.0.1:3306",
            "--mysqld.username=$(CELLAR_MONITORING_USER)",
            "--tls.insecure-skip-verify");
    Map<String, EnvVar> env = env(exporter);
    fromMonitoringSecret(env.get("CELLAR_MONITORING_USER"), name, "monitoring-user");
    fromMonitoringSecret(env.get("MYSQLD_EXPORTER_PASSWORD"), name, "monitoring-password");
    assertThat(ports(child(Service.class, name + "-headless")))
        .isEqualTo(Map.of("db", 3306, "metrics", 9104));
  }
}
