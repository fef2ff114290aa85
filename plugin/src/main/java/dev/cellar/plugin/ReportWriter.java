package dev.cellar.plugin;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * {@code kubectl cellar report}: a zip for bug reports. Entries: {@code README.txt}, {@code
 * status.txt} (the status screen), {@code database.yaml}, {@code children/<kind>/<name>.yaml}
 * (StatefulSets, pods, Services, ConfigMaps, Secrets, volume claims, CronJobs, Jobs,
 * PodDisruptionBudgets labelled with the Database's name, and its credentials Secret), {@code
 * events.yaml}, {@code logs/<pod>/<container>.log} (and {@code .previous.log} after a restart).
 * Secret values are replaced by {@code REDACTED} and scrubbed from every other entry ({@link
 * Redactor}). What could not be read is named in {@code errors.txt}.
 */
final class ReportWriter {
  record Summary(int objects, int events, int logs) {}

  private final KubernetesClient client;
  private final String namespace;
  private final Database db;
  private final Redactor redactor = new Redactor();
  private final List<String> errors = new ArrayList<>();

  ReportWriter(KubernetesClient client, String namespace, Database db) {
    this.client = client;
    this.namespace = namespace;
    this.db = db;
  }

  Summary write(Path file) throws IOException {
    String name = db.getMetadata().getName();
    // Secrets first, so that their values are known before any text is written.
    List<HasMetadata> children = new ArrayList<>();
    List<Secret> secrets =
        new ArrayList<>(
            list(
                "secrets",
                () ->
                    client
                        .secrets()
                        .inNamespace(namespace)
                        .withLabel(Keys.INSTANCE, name)
                        .list()
                        .getItems()));
    String credentials =
        db.getStatus() != null && db.getStatus().getCredentialsSecret() != null
            ? db.getStatus().getCredentialsSecret()
            : ChildNames.of(name).credentialsSecret();
    if (secrets.stream().noneMatch(s -> credentials.equals(s.getMetadata().getName()))) {
      try {
        Secret s = client.secrets().inNamespace(namespace).withName(credentials).get();
        if (s != null) {
          secrets.add(s);
        }
      } catch (KubernetesClientException e) {
        errors.add("secret " + credentials + ": " + Commands.describe(e));
      }
    }
    secrets.forEach(redactor::remember);
    children.addAll(secrets);
    children.addAll(
        list(
            "statefulsets",
            () ->
                client
                    .apps()
                    .statefulSets()
                    .inNamespace(namespace)
                    .withLabel(Keys.INSTANCE, name)
                    .list()
                    .getItems()));
    List<Pod> pods =
        list(
            "pods",
            () ->
                client
                    .pods()
                    .inNamespace(namespace)
                    .withLabel(Keys.INSTANCE, name)
                    .list()
                    .getItems());
    children.addAll(pods);
    children.addAll(
        list(
            "services",
            () ->
                client
                    .services()
                    .inNamespace(namespace)
                    .withLabel(Keys.INSTANCE, name)
                    .list()
                    .getItems()));
    children.addAll(
        list(
            "configmaps",
            () ->
                client
                    .configMaps()
                    .inNamespace(namespace)
                    .withLabel(Keys.INSTANCE, name)
                    .list()
                    .getItems()));
    children.addAll(
        list(
            "persistentvolumeclaims",
            () ->
                client
                    .persistentVolumeClaims()
                    .inNamespace(namespace)
                    .withLabel(Keys.INSTANCE, name)
                    .list()
                    .getItems()));
    children.addAll(
        list(
            "cronjobs",
            () ->
                client
                    .batch()
                    .v1()
                    .cronjobs()
                    .inNamespace(namespace)
                    .withLabel(Keys.INSTANCE, name)
                    .list()
                    .getItems()));
    children.addAll(
        list(
            "jobs",
            () ->
                client
                    .batch()
                    .v1()
                    .jobs()
                    .inNamespace(namespace)
                    .withLabel(Keys.INSTANCE, name)
                    .list()
                    .getItems()));
    children.addAll(
        list(
            "poddisruptionbudgets",
            () ->
                client
                    .policy()
                    .v1()
                    .podDisruptionBudget()
                    .inNamespace(namespace)
                    .withLabel(Keys.INSTANCE, name)
                    .list()
                    .getItems()));
    var events = Commands.events(client, namespace, name);

    Map<String, String> entries = new LinkedHashMap<>();
    Database dbCopy = redactor.object(db);
    entries.put("database.yaml", Serialization.asYaml(dbCopy));
    List<Pod> databasePods =
        pods.stream()
            .filter(
                p ->
                    Keys.Component.DATABASE
                        .value()
                        .equals(p.getMetadata().getLabels().get(Keys.COMPONENT)))
            .toList();
    entries.put(
        "status.txt", new StatusView(db, databasePods, events, Instant.now(), false).render());
    for (HasMetadata child : children) {
      entries.put(
          "children/"
              + child.getKind().toLowerCase(Locale.ROOT)
              + "/"
              + child.getMetadata().getName()
              + ".yaml",
          Serialization.asYaml(redactor.object(child)));
    }
    entries.put("events.yaml", Serialization.asYaml(events));
    int logs = 0;
    for (Pod pod : pods) {
      List<Container> containers = new ArrayList<>();
      if (pod.getSpec().getInitContainers() != null) {
        containers.addAll(pod.getSpec().getInitContainers());
      }
      containers.addAll(pod.getSpec().getContainers());
      for (Container c : containers) {
        String podName = pod.getMetadata().getName();
        try {
          String log =
              client
                  .pods()
                  .inNamespace(namespace)
                  .withName(podName)
                  .inContainer(c.getName())
                  .getLog();
          entries.put("logs/" + podName + "/" + c.getName() + ".log", log == null ? "" : log);
          logs++;
        } catch (KubernetesClientException e) {
          errors.add("log of " + podName + "/" + c.getName() + ": " + Commands.describe(e));
        }
        if (restarted(pod, c.getName())) {
          try {
            String previous =
                client
                    .pods()
                    .inNamespace(namespace)
                    .withName(podName)
                    .inContainer(c.getName())
                    .terminated()
                    .getLog();
            entries.put("logs/" + podName + "/" + c.getName() + ".previous.log", previous);
          } catch (KubernetesClientException e) {
            errors.add(
                "previous log of " + podName + "/" + c.getName() + ": " + Commands.describe(e));
          }
        }
      }
    }
    entries.put(
        "README.txt",
        "Cellar report of Database "
            + name
            + " in namespace "
            + namespace
            + ", written "
            + Instant.now()
            + " by kubectl-cellar "
            + Main.VERSION
            + ".\nSecret values are replaced by "
            + Redactor.REDACTED
            + " (their keys are kept), and scrubbed from every other file.\n"
            + "status.txt: kubectl cellar status; database.yaml; children/<kind>/<name>.yaml;"
            + " events.yaml; logs/<pod>/<container>.log"
            + (errors.isEmpty() ? "" : "; errors.txt: what could not be read")
            + ".\n");
    if (!errors.isEmpty()) {
      entries.put("errors.txt", String.join("\n", errors) + "\n");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (OutputStream os = Files.newOutputStream(file);
        ZipOutputStream zip = new ZipOutputStream(os)) {
      for (var entry : entries.entrySet()) {
        zip.putNextEntry(new ZipEntry(name + "/" + entry.getKey()));
        zip.write(redactor.text(entry.getValue()).getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
      }
    }
    return new Summary(children.size() + 1, events.size(), logs);
  }

  private static boolean restarted(Pod pod, String container) {
    return pod.getStatus() != null
        && pod.getStatus().getContainerStatuses() != null
        && pod.getStatus().getContainerStatuses().stream()
            .anyMatch(
                s ->
                    container.equals(s.getName())
                        && s.getRestartCount() != null
                        && s.getRestartCount() > 0);
  }

  private <T> List<T> list(String what, Supplier<List<T>> lister) {
    try {
      return lister.get();
    } catch (KubernetesClientException e) {
      errors.add(what + ": " + Commands.describe(e));
      return List.of();
    }
  }
}
