package dev.cellar.operator.podspec;

import dev.cellar.api.v1.BackupSpec;
import dev.cellar.api.v1.ComputeResources;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseResources;
import dev.cellar.operator.storage.Quantities;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Requests and limits of the containers Cellar runs next to the database: the backup Jobs and the
 * restore step. Every container has cpu, memory and ephemeral-storage requests and limits (a linter
 * in the build checks it). What the user gives replaces the default quantity by quantity; a default
 * request above a limit the user lowered is lowered to that limit, so the pod is admitted.
 */
public final class ContainerResources {
  public static final String CPU = "cpu";
  public static final String MEMORY = "memory";
  public static final String EPHEMERAL_STORAGE = "ephemeral-storage";

  /** Room for the scripts, their logs and /tmp, besides what a dump takes. */
  public static final long BASE_EPHEMERAL_MI = 1024;

  private ContainerResources() {}

  /**
   * The backup Job's container. Its scratch volume holds the verification's throwaway server (as
   * large as the restored database, at most the data volume) and, for a bucket, the dump before
   * upload and again when read back: the ephemeral-storage limit leaves room for twice the data.
   */
  public static ResourceRequirements backup(Database db, boolean verify, boolean objectStore) {
    BackupSpec backup = db.getSpec().getBackup();
    long scratchMi =
        verify || objectStore ? 2 * Quantities.inMebibytes(db.getSpec().getStorage()) : 0;
    return merge(
        Map.of(
            CPU, new Quantity("100m"),
            MEMORY, new Quantity("128Mi"),
            EPHEMERAL_STORAGE, new Quantity("256Mi")),
        Map.of(
            CPU, new Quantity("1"),
            // The verification runs a server of the engine next to the dump.
            MEMORY, new Quantity(verify ? "1Gi" : "512Mi"),
            EPHEMERAL_STORAGE, Quantities.mebibytes(BASE_EPHEMERAL_MI + scratchMi)),
        Optional.ofNullable(backup).map(BackupSpec::getResources).orElse(null));
  }

  /**
   * The restore step (bootstrap.fromBackup's init container). No default ephemeral-storage limit:
   * the dump it fetches stays in the pod's restore volume for the pod's life and may be of any
   * size, and a limit derived from spec.storage would change the pod template, and so restart the
   * pods, whenever the storage grows (see {@link #databaseEphemeralLimit}).
   */
  public static ResourceRequirements restore(Database db) {
    return merge(
        Map.of(
            CPU, new Quantity("100m"),
            MEMORY, new Quantity("64Mi"),
            EPHEMERAL_STORAGE, new Quantity("256Mi")),
        Map.of(CPU, new Quantity("500m"), MEMORY, new Quantity("256Mi")),
        null);
  }

  /**
   * The database container's default ephemeral-storage limit: 2Gi for its logs and temporary files;
   * none for a Database restored from a backup, whose dump stays in the pod's restore volume (an
   * emptyDir, counted against the pod's limit), unless spec.resources sets one. The limit never
   * depends on spec.storage: a storage resize must not restart the pods.
   */
  public static Optional<Quantity> databaseEphemeralLimit(Database db) {
    return restoring(db) ? Optional.empty() : Optional.of(new Quantity("2Gi"));
  }

  public static boolean restoring(Database db) {
    return db.getSpec().getBootstrap() != null
        && db.getSpec().getBootstrap().getFromBackup() != null;
  }

  /** The database container's ephemeral-storage request. */
  public static final Quantity DATABASE_EPHEMERAL_REQUEST = new Quantity("256Mi");

  /** {@code defaults} with the user's {@code wanted} quantities put over them. */
  public static ResourceRequirements merge(
      Map<String, Quantity> requestDefaults,
      Map<String, Quantity> limitDefaults,
      DatabaseResources wanted) {
    Map<String, Quantity> limits = new TreeMap<>(limitDefaults);
    Map<String, Quantity> requests = new TreeMap<>(requestDefaults);
    if (wanted != null) {
      put(limits, wanted.getLimits());
      put(requests, wanted.getRequests());
    }
    // A request the user raised above a default limit: the limit follows the request.
    if (wanted != null) {
      requests.forEach(
          (name, request) -> {
            Quantity limit = limits.get(name);
            if (given(wanted.getRequests(), name)
                && !given(wanted.getLimits(), name)
                && limit != null
                && request.getNumericalAmount().compareTo(limit.getNumericalAmount()) > 0) {
              limits.put(name, request);
            }
          });
    }
    // A default request above a limit the user lowered: the request follows the limit.
    requests.replaceAll(
        (name, request) -> {
          Quantity limit = limits.get(name);
          boolean userRequest = wanted != null && given(wanted.getRequests(), name);
          return limit != null
                  && !userRequest
                  && request.getNumericalAmount().compareTo(limit.getNumericalAmount()) > 0
              ? limit
              : request;
        });
    return new ResourceRequirementsBuilder().withRequests(requests).withLimits(limits).build();
  }

  private static boolean given(ComputeResources r, String name) {
    return r != null && get(r, name) != null;
  }

  private static IntOrString get(ComputeResources r, String name) {
    return switch (name) {
      case CPU -> r.getCpu();
      case MEMORY -> r.getMemory();
      case EPHEMERAL_STORAGE -> r.getEphemeralStorage();
      default -> null;
    };
  }

  private static void put(Map<String, Quantity> into, ComputeResources r) {
    if (r == null) {
      return;
    }
    for (String name : new String[] {CPU, MEMORY, EPHEMERAL_STORAGE}) {
      IntOrString v = get(r, name);
      if (v != null) {
        into.put(name, quantity(v));
      }
    }
  }

  public static Quantity quantity(IntOrString value) {
    return new Quantity(
        value.getIntVal() != null ? value.getIntVal().toString() : value.getStrVal());
  }
}
