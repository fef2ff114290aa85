package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.backup.RestoreSource;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/**
 * The workflow's reconcile preconditions, each a small named class. A false precondition deletes
 * the dependent (and what depends on it).
 */
public final class Preconditions {
  private Preconditions() {}

  /** The exporter runs (spec.monitoring.enabled is not false): a PodMonitor is wanted. */
  public static final class MonitoringEnabled implements Condition<HasMetadata, Database> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, Database> dependent, Database db, Context<Database> ctx) {
      return Topology.of(db).monitoringOn();
    }
  }

  /** Backups run: the CronJob and its PVC are wanted. */
  public static final class BackupEnabled implements Condition<HasMetadata, Database> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, Database> dependent, Database db, Context<Database> ctx) {
      return Boolean.TRUE.equals(db.getSpec().getBackupEnabled());
    }
  }

  /**
   * Backups run and land on the backups volume: with spec.backup.objectStore the dumps go to the
   * bucket, and no volume is made for them. A volume made before stays (the dependent deletes
   * nothing), and with it the dumps already on it.
   */
  public static final class BackupsOnVolume implements Condition<HasMetadata, Database> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, Database> dependent, Database db, Context<Database> ctx) {
      return Boolean.TRUE.equals(db.getSpec().getBackupEnabled())
          && (db.getSpec().getBackup() == null
              || db.getSpec().getBackup().getObjectStore() == null);
    }
  }

  /** spec.networkPolicy.enabled (default true): the NetworkPolicy is wanted. */
  public static final class NetworkPolicyEnabled implements Condition<HasMetadata, Database> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, Database> dependent, Database db, Context<Database> ctx) {
      return db.getSpec().getNetworkPolicy() == null
          || !Boolean.FALSE.equals(db.getSpec().getNetworkPolicy().getEnabled());
    }
  }

  /**
   * TLS on and no certificate Secret of the user's: Cellar issues the CA and the server
   * certificate. When false the server certificate Secret goes; the CA Secret (no Deleter) stays
   * for the day TLS comes back, so clients keep trusting the same CA.
   */
  public static final class IssuesCertificate implements Condition<HasMetadata, Database> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, Database> dependent, Database db, Context<Database> ctx) {
      return Topology.of(db).issuesCertificate();
    }
  }

  /** spec.tls.issuerRef with TLS on: cert-manager's Certificate is wanted. */
  public static final class IssuedByCertManager implements Condition<HasMetadata, Database> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, Database> dependent, Database db, Context<Database> ctx) {
      return Topology.of(db).certManagerIssuer().isPresent()
          && Topology.of(db).serverCertificateSecret().equals(Topology.of(db).certManagerSecret());
    }
  }

  /**
   * spec.tls.clientCertificates with the CA Cellar issues: the application user's client
   * certificate Secret is wanted. When false it goes (clients then need none).
   */
  public static final class IssuesClientCertificate implements Condition<HasMetadata, Database> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, Database> dependent, Database db, Context<Database> ctx) {
      Topology topology = Topology.of(db);
      return topology.issuesCertificate() && topology.requiresClientCertificates();
    }
  }

  /** More than one pod: the read-only Service and the PodDisruptionBudget are wanted. */
  public static final class Replicated implements Condition<HasMetadata, Database> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, Database> dependent, Database db, Context<Database> ctx) {
      return db.getSpec().getReplicas() != null && db.getSpec().getReplicas() > 1;
    }
  }

  /**
   * The StatefulSet is wanted: it exists already (it is kept as it is), or its version runs ({@link
   * VersionRunnable}) and, for a restore, its source is there ({@link RestoreSource}, checked
   * before the workflow). When false there is no StatefulSet, so nothing is deleted.
   */
  public static final class PodsMayStart implements Condition<StatefulSet, Database> {
    @Override
    public boolean isMet(
        DependentResource<StatefulSet, Database> dependent, Database db, Context<Database> ctx) {
      return dependent.getSecondaryResource(db, ctx).isPresent()
          || (new VersionRunnable().isMet(dependent, db, ctx)
              && RestoreSource.of(ctx).allowsPods());
    }
  }

  /**
   * Something can run: a StatefulSet exists already (it is kept as it is), or the spec's version is
   * one the engine supports. When false there is no StatefulSet, so nothing is deleted.
   */
  public static final class VersionRunnable implements Condition<StatefulSet, Database> {
    @Override
    public boolean isMet(
        DependentResource<StatefulSet, Database> dependent, Database db, Context<Database> ctx) {
      return dependent.getSecondaryResource(db, ctx).isPresent()
          || Topology.of(db)
              .versionDecision(dependent.getSecondaryResource(db, ctx))
              .target()
              .isPresent();
    }
  }
}
