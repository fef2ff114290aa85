package dev.cellar.operator.backup;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.informers.Informers;
import dev.cellar.operator.runtime.PatchByName;
import dev.cellar.operator.topology.Children;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backup Jobs from the operator's side: the result each one reported (its container's termination
 * message, one line of JSON from backup.sh), recorded on the Job once it ends so that the status
 * can be computed from the Jobs alone; and the requests made with annotations, one Job per value of
 * {@code cellar.dev/backup-now} (a backup) or {@code cellar.dev/verify-now} (the newest stored dump
 * verified again), each removed once its Job has ended.
 */
public final class BackupResults {
  private static final Logger log = LoggerFactory.getLogger(BackupResults.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where the reconcile leaves the Jobs whose results it just recorded, for the status. */
  public static final String CONTEXT_KEY = "cellar.backup.recorded-jobs";

  /** Where a reconcile keeps the requests whose Jobs have ended ({@link #endRequests}). */
  private static final String ENDED_KEY = "cellar.backup.ended-requests";

  /** The longest message kept from a pod (termination messages are at most 4096 bytes). */
  static final int MAX_MESSAGE = 1024;

  private BackupResults() {}

  /** What a backup Job reported: backup.sh's result line. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Result(
      String result,
      String stage,
      String name,
      String location,
      Long sizeBytes,
      String startTime,
      String completionTime,
      Boolean verified,
      String verification,
      String message) {

    public boolean succeeded() {
      return "succeeded".equals(result);
    }

    public boolean isVerified() {
      return Boolean.TRUE.equals(verified);
    }

    static Result failed(String message) {
      return new Result("failed", null, null, null, null, null, null, null, null, message);
    }

    String toJson() {
      try {
        return JSON.writeValueAsString(this);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }

    /** The result line a container wrote; anything else is a failure that quotes it. */
    static Result parse(String line) {
      String text = line == null ? "" : line.strip();
      try {
        Result r = JSON.readValue(text, Result.class);
        if (r.result() != null) {
          return r;
        }
      } catch (java.io.IOException | IllegalArgumentException e) {
        // not backup.sh's line: quoted below
      }
      return failed("the backup container reported: " + abbreviate(text));
    }
  }

  /** A Job that verified a stored dump again, and wrote none. */
  public static boolean verification(Job job) {
    return Keys.TRIGGER_VERIFY.equals(trigger(job));
  }

  /** The result recorded on a Job, if it has ended and been read. */
  public static Optional<Result> of(Job job) {
    return Optional.ofNullable(job.getMetadata().getAnnotations())
        .map(a -> a.get(Keys.BACKUP_RESULT_ANNOTATION))
        .map(Result::parse);
  }

  /** The trigger of a Job: scheduled, on-demand or verify. */
  public static String trigger(Job job) {
    return Optional.ofNullable(job.getMetadata().getLabels())
        .map(l -> l.get(Keys.BACKUP_TRIGGER_LABEL))
        .orElse(Keys.TRIGGER_SCHEDULED);
  }

  /** A Job that has ended, well or not. */
  public static boolean finished(Job job) {
    return condition(job, "Complete") || condition(job, "Failed");
  }

  public static boolean condition(Job job, String type) {
    return job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /**
   * The reconcile step: records the result of every backup Job that ended and has none yet (one pod
   * read and one Job patch per Job, once), and runs an on-demand backup if one is asked for. The
   * recorded Jobs are left in the context for the status.
   */
  public static void reconcile(Database db, Context<Database> context) {
    KubernetesClient client = context.getClient();
    List<Job> jobs = List.copyOf(context.getSecondaryResources(Job.class));
    Map<String, Job> recorded = new HashMap<>();
    for (Job job : jobs) {
      if (finished(job) && of(job).isEmpty()) {
        record(client, job).ifPresent(j -> recorded.put(j.getMetadata().getName(), j));
      }
    }
    context.managedWorkflowAndDependentResourceContext().put(CONTEXT_KEY, recorded);
    List<Ended> ended = new ArrayList<>();
    onDemand(db, context, client, jobs, recorded, ended);
    context.managedWorkflowAndDependentResourceContext().put(ENDED_KEY, ended);
  }

  /** The backup Jobs as the status should see them: the informer's, with fresh results. */
  public static List<Job> observedJobs(Context<Database> context) {
    @SuppressWarnings("unchecked")
    Map<String, Job> recorded =
        context
            .managedWorkflowAndDependentResourceContext()
            .get(CONTEXT_KEY, Map.class)
            .orElse(Map.of());
    List<Job> jobs = new ArrayList<>();
    for (Job job : context.getSecondaryResources(Job.class)) {
      jobs.add(recorded.getOrDefault(job.getMetadata().getName(), job));
    }
    return jobs;
  }

  private static Optional<Job> record(KubernetesClient client, Job job) {
    String ns = job.getMetadata().getNamespace();
    String name = job.getMetadata().getName();
    Result result;
    try {
      result =
          fromPods(
              client.pods().inNamespace(ns).withLabel(Keys.JOB_NAME, name).list().getItems(), job);
      Map<String, Object> patch =
          Map.of(
              "metadata",
              Map.of("annotations", Map.of(Keys.BACKUP_RESULT_ANNOTATION, result.toJson())));
      Job patched =
          PatchByName.send(
              client, Job.class, ns, name, PatchType.JSON_MERGE, JSON.writeValueAsString(patch));
      log.info(
          "backup job {}/{} ended: {} {}",
          ns,
          name,
          result.result(),
          result.succeeded() ? result.location() : result.message());
      return Optional.ofNullable(patched);
    } catch (KubernetesClientException | com.fasterxml.jackson.core.JsonProcessingException e) {
      // Read again at the next reconcile; the status meanwhile knows only that the Job ended.
      log.debug("could not record the result of backup job {}/{}: {}", ns, name, e.toString());
      return Optional.empty();
    }
  }

  /** The result the newest pod of an ended Job reported, or why there is none. */
  static Result fromPods(List<Pod> pods, Job job) {
    Optional<ContainerStateTerminated> terminated =
        pods.stream()
            .filter(p -> p.getMetadata().getCreationTimestamp() != null)
            .sorted(
                Comparator.comparing((Pod p) -> p.getMetadata().getCreationTimestamp()).reversed())
            .flatMap(
                p ->
                    Optional.ofNullable(p.getStatus())
                        .map(s -> s.getContainerStatuses())
                        .orElse(List.of())
                        .stream())
            .filter(c -> ChildNames.BACKUP_CONTAINER.equals(c.getName()))
            .map(ContainerStatus::getState)
            .filter(s -> s != null && s.getTerminated() != null)
            .map(s -> s.getTerminated())
            .findFirst();
    if (terminated.isPresent()
        && terminated.get().getMessage() != null
        && !terminated.get().getMessage().isBlank()) {
      return Result.parse(terminated.get().getMessage());
    }
    boolean complete = condition(job, "Complete");
    if (complete) {
      return new Result("succeeded", null, null, null, null, null, null, null, null, null);
    }
    String why =
        terminated
            .map(
                t ->
                    "the backup container ended with exit code "
                        + t.getExitCode()
                        + (t.getReason() == null ? "" : " (" + t.getReason() + ")")
                        + " without a result")
            .orElseGet(
                () ->
                    Optional.ofNullable(job.getStatus().getConditions()).orElse(List.of()).stream()
                        .filter(c -> "Failed".equals(c.getType()))
                        .map(c -> "the Job failed: " + c.getReason() + ": " + c.getMessage())
                        .findFirst()
                        .orElse("the Job failed"));
    return Result.failed(why);
  }

  /**
   * A request a user makes with an annotation on the Database: a backup now, or a verification of
   * the newest stored dump. Each new value of the annotation runs one Job, made from the CronJob's
   * template (same image, target and keys), and the annotation goes once that Job has ended.
   */
  enum Request {
    BACKUP(Keys.BACKUP_NOW_ANNOTATION, Keys.TRIGGER_ON_DEMAND),
    VERIFY(Keys.VERIFY_NOW_ANNOTATION, Keys.TRIGGER_VERIFY);

    final String annotation;
    final String trigger;

    Request(String annotation, String trigger) {
      this.annotation = annotation;
      this.trigger = trigger;
    }

    String jobName(Topology topology, String token) {
      return this == BACKUP ? topology.onDemandBackupJob(token) : topology.onDemandVerifyJob(token);
    }
  }

  private static void onDemand(
      Database db,
      Context<Database> context,
      KubernetesClient client,
      List<Job> jobs,
      Map<String, Job> recorded,
      List<Ended> ended) {
    if (!Boolean.TRUE.equals(db.getSpec().getBackupEnabled())
        || Boolean.TRUE.equals(db.getSpec().getHibernated())) {
      return;
    }
    Optional<CronJob> cron = Children.backupCronJob(db, context);
    if (cron.isEmpty()) {
      return;
    }
    for (Request request : Request.values()) {
      Optional<String> token =
          Optional.ofNullable(db.getMetadata().getAnnotations())
              .map(a -> a.get(request.annotation));
      if (token.isPresent()) {
        onDemand(db, request, token.get(), cron.get(), client, jobs, recorded, ended);
      }
    }
  }

  private static void onDemand(
      Database db,
      Request request,
      String token,
      CronJob cron,
      KubernetesClient client,
      List<Job> jobs,
      Map<String, Job> recorded,
      List<Ended> ended) {
    String jobName = request.jobName(Topology.of(db), token);
    Optional<Job> existing =
        jobs.stream().filter(j -> j.getMetadata().getName().equals(jobName)).findFirst();
    if (existing.isEmpty()) {
      createOnDemand(db, request, cron, jobName, token, client);
      return;
    }
    Job job = recorded.getOrDefault(jobName, existing.get());
    if (finished(job) && of(job).isPresent()) {
      ended.add(new Ended(request, token));
    }
  }

  /** A request whose Job has ended and been read: {@link #endRequests} removes it. */
  private record Ended(Request request, String token) {}

  /**
   * Removes the requests whose Jobs have ended from the Database, unless replaced by new ones
   * meanwhile. Called once the status naming their results is written: a user waiting for the
   * annotation to go ({@code kubectl cellar backup --wait}) then reads the result in the same
   * Database. Removed before the status, a read between the two writes found the request done and
   * no new dump (PluginRealNodeIT, once).
   */
  public static void endRequests(Database db, Context<Database> context) {
    @SuppressWarnings("unchecked")
    List<Ended> ended =
        context
            .managedWorkflowAndDependentResourceContext()
            .get(ENDED_KEY, List.class)
            .orElse(List.of());
    for (Ended request : ended) {
      String path = "/metadata/annotations/" + request.request().annotation.replace("/", "~1");
      List<Map<String, Object>> ops =
          List.of(
              Map.of("op", "test", "path", path, "value", request.token()),
              Map.of("op", "remove", "path", path));
      try {
        PatchByName.send(context.getClient(), db, PatchType.JSON, JSON.writeValueAsString(ops));
      } catch (KubernetesClientException e) {
        if (e.getCode() != 422 && e.getCode() != 404) {
          throw e;
        }
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static void createOnDemand(
      Database db,
      Request request,
      CronJob cron,
      String jobName,
      String token,
      KubernetesClient client) {
    // The informer's copy may have no Job template (Informers#partial): the API server's has.
    CronJob whole =
        Informers.bound().partial(cron)
            ? client
                .batch()
                .v1()
                .cronjobs()
                .inNamespace(cron.getMetadata().getNamespace())
                .withName(cron.getMetadata().getName())
                .get()
            : cron;
    if (whole == null || whole.getSpec() == null || whole.getSpec().getJobTemplate() == null) {
      return; // deleted meanwhile: the workflow creates it again, the request waits for it
    }
    // A copy: the CronJob may be the informer's.
    JobSpec spec = JSON.convertValue(whole.getSpec().getJobTemplate().getSpec(), JobSpec.class);
    spec.getTemplate().getMetadata().setLabels(BackupJobs.labels(db, request.trigger));
    if (request == Request.VERIFY) {
      BackupJobs.verifyOnly(db, spec);
    }
    Job job =
        new JobBuilder()
            .withNewMetadata()
            .withName(jobName)
            .withNamespace(db.getMetadata().getNamespace())
            .withLabels(BackupJobs.labels(db, request.trigger))
            .addToAnnotations(request.annotation, token)
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion(db.getApiVersion())
                    .withKind(db.getKind())
                    .withName(db.getMetadata().getName())
                    .withUid(db.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build())
            .endMetadata()
            .withSpec(spec)
            .build();
    try {
      client.resource(job).create();
      log.info(
          "{} of {}/{}: job {} created",
          request == Request.VERIFY ? "verification of the newest dump" : "on-demand backup",
          db.getMetadata().getNamespace(),
          db.getMetadata().getName(),
          jobName);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }

  static String abbreviate(String text) {
    String one = text.replaceAll("\\s+", " ").strip();
    return one.length() <= MAX_MESSAGE ? one : one.substring(0, MAX_MESSAGE) + "...";
  }
}
