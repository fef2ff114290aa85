package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;
import java.util.ArrayList;
import java.util.List;
import lombok.Data;

/** What is actually running, as the operator last observed it. */
@Data
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DatabaseStatus {
  @JsonPropertyDescription(
      "Provisioning, Ready, Updating, Degraded, Failed or Hibernated; the conditions say why.")
  @PrinterColumn(name = "STATUS")
  private Phase phase;

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription(
      "Ready, Available, Progressing, Degraded and BackupReady, each with a reason and a message.")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("The engine that runs now.")
  private String engine;

  @JsonPropertyDescription(
      "The version that runs now (for a new Database, the one its first pods are made at), which"
          + " may differ from spec.version.")
  @PrinterColumn(name = "VERSION")
  private String version;

  @JsonPropertyDescription("Desired database pods.")
  @StatusReplicas
  private Integer replicas;

  @JsonPropertyDescription("Database pods that are ready.")
  @PrinterColumn(name = "READY")
  private Integer readyReplicas;

  @JsonPropertyDescription(
      "Read-write address of the primary: <name>.<namespace>.svc.cluster.local:<port>.")
  @PrinterColumn(name = "ENDPOINT", priority = 1)
  private String endpoint;

  @JsonPropertyDescription(
      "The pod that is the primary now: the read-write Service <name> selects it, and every other"
          + " pod replicates from it.")
  @PrinterColumn(name = "PRIMARY", priority = 1)
  private String currentPrimary;

  @JsonPropertyDescription(
      "When the primary first accepted connections (RFC 3339). From then on an empty data volume"
          + " under the primary means lost data, which a replica replaces; before, it is a new"
          + " database to initialise.")
  private String firstAvailableTime;

  @JsonPropertyDescription(
      "Each database pod the spec asks for, and any other still there: its role (primary or"
          + " replica) and readiness (false for a pod not created yet).")
  private List<InstanceStatus> instances;

  @JsonPropertyDescription("Read-only address of the replicas, when replicas > 1.")
  private String readOnlyEndpoint;

  @JsonPropertyDescription(
      "Secret with username, password, database, host, port and uri for connecting.")
  private String credentialsSecret;

  @JsonPropertyDescription(
      "Which of the credentials Secret's passwords the servers hold: a change to the Secret is"
          + " applied in the running servers.")
  private CredentialsStatus credentials;

  @JsonPropertyDescription(
      "The server certificate: its Secret, when it expires and when Cellar renews it; absent"
          + " when TLS is disabled.")
  private TlsStatus tls;

  @JsonPropertyDescription("When the last successful backup finished (RFC 3339).")
  private String lastBackupTime;

  @JsonPropertyDescription(
      "The last backup that succeeded: the dump's name, where it went, when it started and ended,"
          + " its size, and whether it was scheduled or on demand.")
  private BackupRecord lastBackup;

  @JsonPropertyDescription(
      "The last dump that was restored into a throwaway server and answered a query.")
  private BackupRecord lastVerifiedBackup;

  @JsonPropertyDescription("What the user must do for the spec to take effect; empty when nothing.")
  private String pendingAction;
}
