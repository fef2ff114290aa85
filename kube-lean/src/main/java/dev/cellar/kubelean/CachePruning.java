package dev.cellar.kubelean;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * What the informers keep of each object: what Cellar reads, not the whole object. Every object in
 * every informer's cache otherwise costs the operator heap for as long as it exists, so this is
 * what bounds the operator's memory per Database (docs/performance.md, Pruned informer caches).
 *
 * <ul>
 *   <li>{@code metadata.managedFields} (about 45 % of a pod, StatefulSet or Service as the API
 *       server sends them) go, except on the kinds matched by server-side apply from the cache
 *       (PVC, PodDisruptionBudget, NetworkPolicy), where JOSDK's SSA matcher needs the {@code
 *       Apply} entries (Cellar's own); the other managers' entries go there too, and identical
 *       Apply field sets are kept once.
 *   <li>StatefulSets keep, of their spec, the replicas, the update strategy, the claim templates
 *       and, of the pod template, its metadata, each container's name and image and each volume's
 *       name and ConfigMap; backup CronJobs keep their spec but the Job template. The two were half
 *       of what the caches held (a pod template is most of either), and JOSDK's matcher is the only
 *       reader of the rest: a dependent whose child is {@link #specPruned} reads it whole from the
 *       API server to compare it, which {@code KnownMatches} makes rare (a child changed by someone
 *       else; the first reconcile after a start).
 *   <li>ConfigMaps keep their metadata and, in place of their files (a Database's configuration;
 *       the engine's scripts, about 60 KB, in the shared scripts ConfigMap), the SHA-256 of the
 *       files under {@link #DATA_HASH}, a key no ConfigMap on a server can have (keys may not
 *       contain a slash). The operator's matcher compares that hash with the hash of the files it
 *       would write ({@link #dataHash}), so an edited file is still repaired.
 *   <li>The primary resources (the Databases, in a {@link #primaryStore}) lose their managedFields
 *       and kubectl's last-applied-configuration annotation: Cellar writes their status by
 *       server-side apply and never writes a cached one back.
 *   <li>Pods keep metadata, of their spec only the node name, and of their status what Cellar reads
 *       (phase, conditions, each container's name, image, readiness and states: {@link
 *       #prunePodStatus}). Backup Jobs keep metadata and status.
 * </ul>
 *
 * <p>The pruning happens in the object the informer received (no copy), before it is stored; the
 * objects a reconcile reads come from the store and are pruned the same way. A new reader of a
 * field dropped here must keep it here first.
 */
public final class CachePruning {
  /** Where a pruned ConfigMap keeps the SHA-256 of its files, in place of the files. */
  public static final String DATA_HASH = "cellar.dev/data-sha256";

  /**
   * Objects per page of an informer's list. Unpaged, an operator starting beside 500 Databases read
   * every kind's whole list at once (the ConfigMaps' JSON alone about 20 MB, the CronJobs' 17 MB)
   * before any of it was pruned, and ran out of a 128 MiB heap that held the converged caches
   * (docs/performance.md, Lists read in pages of 100); a page is pruned into the store before the
   * next is read.
   */
  public static final long LIST_PAGE = 100;

  private static final String APPLY = "Apply";

  /**
   * Field sets seen in Apply entries, by content; bounded, since field names (not values) vary only
   * with what Cellar applies (engine, replicas, backups), not with each Database.
   */
  private static final Map<Map<?, ?>, Map<?, ?>> SHARED_FIELDS = new ConcurrentHashMap<>();

  private static final int MAX_SHARED_FIELDS = 512;
  private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  private CachePruning() {}

  /**
   * An informer store that prunes what it keeps, for one informer. One store serves one informer:
   * the store drops, on a relist, whatever that informer did not list, so informers of several
   * namespaces must not share one (see {@link #forNamespaces}).
   */
  public static <R extends HasMetadata> ItemStore<R> store() {
    return new TransformingItemStore<>((UnaryOperator<R>) CachePruning::prune);
  }

  /**
   * A store for a controller's primary resources, which the operator reads whole but never writes
   * back from its cache: they keep all but their managedFields and kubectl's
   * last-applied-configuration annotation. One store per informer, as {@link #store}.
   */
  public static <R extends HasMetadata> ItemStore<R> primaryStore() {
    return new TransformingItemStore<>((UnaryOperator<R>) CachePruning::prunePrimary);
  }

  /** A primary resource {@code r} as a {@link #primaryStore} keeps it, in place; returns it. */
  static <R extends HasMetadata> R prunePrimary(R r) {
    dropManagedFields(r);
    Optional.ofNullable(r.getMetadata().getAnnotations()).ifPresent(a -> a.remove(LAST_APPLIED));
    // A custom resource is no fabric8 model class, which this leaves alone: JOSDK copies a primary
    // resource for each reconcile.
    if (SharedEmptyCollections.enabled()) {
      SharedEmptyCollections.share(r);
    }
    return r;
  }

  /**
   * Whether a pruning store may be given to an event source watching {@code namespaces}: JOSDK
   * gives the one store it is configured with to each namespace's informer, so with several
   * namespaces (WATCH_NAMESPACES with more than one) the cache stays unpruned.
   */
  public static boolean forNamespaces(java.util.Set<String> namespaces) {
    return namespaces.size() <= 1 && enabled();
  }

  /**
   * Off with {@code -Dcellar.cachePruning=false}: whole objects in every cache, as before pruning
   * (for benchmarks that measure what pruning saves, and as an escape hatch).
   */
  public static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.cachePruning"));
  }

  /** {@code r} with what Cellar does not read removed, in place; returns {@code r}. */
  public static <R extends HasMetadata> R prune(R r) {
    if (r instanceof ConfigMap cm) {
      dropManagedFields(r);
      pruneConfigMap(cm);
    } else if (r instanceof Pod pod) {
      dropManagedFields(r);
      if (pod.getSpec() != null) {
        PodSpec kept = new PodSpec();
        kept.setNodeName(pod.getSpec().getNodeName());
        pod.setSpec(kept);
      }
      prunePodStatus(pod.getStatus());
    } else if (r instanceof Job job) {
      dropManagedFields(r);
      job.setSpec(null);
    } else if (r instanceof Secret secret) {
      dropManagedFields(r);
      shareCaCertificate(secret);
    } else if (r instanceof Service) {
      dropManagedFields(r);
    } else if (r instanceof StatefulSet sts) {
      dropManagedFields(r);
      pruneStatefulSet(sts);
    } else if (r instanceof CronJob cron) {
      dropManagedFields(r);
      pruneCronJob(cron);
    } else {
      keepApplyEntries(r);
    }
    if (SharedEmptyCollections.enabled()) {
      SharedEmptyCollections.share(r);
    }
    return r;
  }

  /** The key of a CA's certificate in a Secret (Cellar's, cert-manager's, kubernetes.io/tls). */
  static final String CA_CERTIFICATE = "ca.crt";

  /**
   * CA certificates seen in Secrets. Each Database's CA certificate is in three of its Secrets (the
   * CA's own, the server certificate's, the clients' credentials), base64 of about 840 characters
   * each: at 500 Databases 0.9 MB of the cache was copies (docs/performance.md, Shared
   * collections). Lossy and small: the Secrets of one Database are read one after the other (a list
   * is sorted by name, a reconcile writes them in turn), and what the table keeps alive is bounded
   * by its slots.
   */
  private static final LossyTable<String> CA_CERTIFICATES = new LossyTable<>(256);

  /** {@code secret}'s CA certificate replaced by an equal one another cached Secret holds. */
  static void shareCaCertificate(Secret secret) {
    Map<String, String> data = secret.getData();
    String ca = data == null ? null : data.get(CA_CERTIFICATE);
    if (ca != null) {
      String shared = CA_CERTIFICATES.shared(ca, ca.hashCode(), UnaryOperator.identity());
      if (shared != ca) {
        data.put(CA_CERTIFICATE, shared);
      }
    }
  }

  /** Marks a spec pruned: {@link #specPruned}. A key no field of a spec can have (a slash). */
  private static final String PRUNED_KEY = "cellar.dev/pruned";

  private static final Map<String, Object> PRUNED = Map.of(PRUNED_KEY, Boolean.TRUE);

  /**
   * Whether {@code r} is a StatefulSet or CronJob whose spec was pruned: only the API server has
   * the rest, which JOSDK's matcher compares.
   */
  public static boolean specPruned(HasMetadata r) {
    Map<String, Object> additional =
        r instanceof StatefulSet sts && sts.getSpec() != null
            ? sts.getSpec().getAdditionalProperties()
            : r instanceof CronJob cron && cron.getSpec() != null
                ? cron.getSpec().getAdditionalProperties()
                : null;
    return additional != null && additional.containsKey(PRUNED_KEY);
  }

  /** Marks {@code spec}, a StatefulSet's or CronJob's, pruned ({@link CacheReads}). */
  static void markPruned(Object spec) {
    if (spec instanceof StatefulSetSpec sts) {
      sts.setAdditionalProperties(PRUNED);
    } else if (spec instanceof CronJobSpec cron) {
      cron.setAdditionalProperties(PRUNED);
    }
  }

  /**
   * What Cellar reads of a StatefulSet's spec: the replicas and update strategy (the status, the
   * roll), the claim templates (their size: the storage plan), the pod template's metadata, each
   * container's name and image (the version decision) and each volume's name and ConfigMap (whether
   * the pods still read the scripts from the Database's ConfigMap).
   */
  static void pruneStatefulSet(StatefulSet sts) {
    StatefulSetSpec spec = sts.getSpec();
    if (spec == null || specPruned(sts)) {
      return;
    }
    StatefulSetSpec kept = new StatefulSetSpec();
    kept.setReplicas(spec.getReplicas());
    kept.setUpdateStrategy(spec.getUpdateStrategy());
    kept.setVolumeClaimTemplates(spec.getVolumeClaimTemplates());
    PodTemplateSpec template = spec.getTemplate();
    if (template != null) {
      PodTemplateSpec keptTemplate = new PodTemplateSpec();
      keptTemplate.setMetadata(template.getMetadata());
      if (template.getSpec() != null) {
        PodSpec pod = new PodSpec();
        pod.setContainers(namesAndImages(template.getSpec().getContainers()));
        pod.setInitContainers(namesAndImages(template.getSpec().getInitContainers()));
        pod.setVolumes(
            template.getSpec().getVolumes() == null
                ? null
                : template.getSpec().getVolumes().stream()
                    .map(CachePruning::nameAndConfigMap)
                    .toList());
        keptTemplate.setSpec(pod);
      }
      kept.setTemplate(keptTemplate);
    }
    kept.setAdditionalProperties(PRUNED);
    sts.setSpec(kept);
  }

  private static Volume nameAndConfigMap(Volume volume) {
    Volume kept = new Volume();
    kept.setName(volume.getName());
    kept.setConfigMap(volume.getConfigMap());
    return kept;
  }

  private static List<Container> namesAndImages(List<Container> containers) {
    return containers == null
        ? null
        : containers.stream()
            .map(
                c -> {
                  Container kept = new Container();
                  kept.setName(c.getName());
                  kept.setImage(c.getImage());
                  return kept;
                })
            .toList();
  }

  /**
   * A backup CronJob's spec without its Job template (the schedule, suspension and history stay):
   * an on-demand backup, the one reader of the template, reads the CronJob from the API server.
   */
  static void pruneCronJob(CronJob cron) {
    CronJobSpec spec = cron.getSpec();
    if (spec == null || specPruned(cron)) {
      return;
    }
    spec.setJobTemplate(null);
    spec.setAdditionalProperties(PRUNED);
  }

  /**
   * A pod's status without what Cellar never reads: its addresses, QoS class and start time, and of
   * each container status the ids, restart count, resources, user and volume mounts. Kept: phase,
   * reason, message, conditions, and each container's name, image, ready, started, state and last
   * state (PodTrouble, the status, TLS reloads and backup results read those).
   */
  static void prunePodStatus(PodStatus status) {
    if (status == null) {
      return;
    }
    status.setPodIP(null);
    status.setPodIPs(null);
    status.setHostIP(null);
    status.setHostIPs(null);
    status.setQosClass(null);
    status.setStartTime(null);
    for (List<ContainerStatus> containers :
        Arrays.asList(status.getContainerStatuses(), status.getInitContainerStatuses())) {
      if (containers != null) {
        containers.forEach(CachePruning::pruneContainerStatus);
      }
    }
    status.setEphemeralContainerStatuses(null);
  }

  private static void pruneContainerStatus(ContainerStatus c) {
    c.setContainerID(null);
    c.setImageID(null);
    c.setRestartCount(null);
    c.setAllocatedResources(null);
    c.setAllocatedResourcesStatus(null);
    c.setResources(null);
    c.setUser(null);
    c.setVolumeMounts(null);
  }

  static void dropManagedFields(HasMetadata r) {
    if (r.getMetadata() != null) {
      r.getMetadata().setManagedFields(null);
    }
  }

  /** Only the server-side apply entries, which JOSDK's SSA matcher reads. */
  static void keepApplyEntries(HasMetadata r) {
    if (r.getMetadata() == null || r.getMetadata().getManagedFields() == null) {
      return;
    }
    List<ManagedFieldsEntry> applied =
        r.getMetadata().getManagedFields().stream()
            .filter(e -> APPLY.equals(e.getOperation()))
            .toList();
    applied.forEach(CachePruning::shareFields);
    // Empty rather than null: JOSDK's SSA matcher streams the list (and finds no entry of its own).
    r.getMetadata().setManagedFields(applied);
  }

  /**
   * Identical field sets, one instance: every object of a kind Cellar applies lists the same field
   * names, a few KB of nested maps each, down to the empty map that ends every path. Shared at
   * every level, not only at the top: {@code f:metadata} differs per object by its owner's uid
   * alone, and its labels' field names and its leaves are the same everywhere (a NetworkPolicy and
   * two claims per Database, about 3 KB a Database at 1,000: docs/performance.md, Apply field sets
   * shared). A map that names an owner by uid stays the object's own, its children shared. JOSDK's
   * matcher only reads them.
   */
  private static void shareFields(ManagedFieldsEntry entry) {
    FieldsV1 fields = entry.getFieldsV1();
    if (fields == null || fields.getAdditionalProperties() == null) {
      return;
    }
    fields.getAdditionalProperties().replaceAll((k, v) -> v instanceof Map<?, ?> m ? shared(m) : v);
  }

  /** {@code subtree} as one shared instance, or in place with its children shared. */
  static Map<?, ?> shared(Map<?, ?> subtree) {
    Map<?, ?> shared = sharedOrNull(subtree);
    return shared == null ? subtree : shared;
  }

  /**
   * The one instance of {@code subtree}, or null when it cannot be shared (it names a uid
   * somewhere, or the table is full); its children are shared in place either way.
   */
  @SuppressWarnings("unchecked")
  private static Map<?, ?> sharedOrNull(Map<?, ?> subtree) {
    Map<?, ?> known = SHARED_FIELDS.get(subtree);
    if (known != null) {
      return known;
    }
    // forEach and replaceAll, not the map's views: a LinkedHashMap keeps a view once made.
    boolean[] unique = {false};
    boolean[] parent = {false};
    subtree.forEach(
        (k, v) -> {
          unique[0] |= String.valueOf(k).contains(UID_KEY);
          parent[0] |= v instanceof Map;
        });
    if (parent[0]) {
      try {
        ((Map<Object, Object>) subtree)
            .replaceAll(
                (k, v) -> {
                  if (!(v instanceof Map<?, ?> child)) {
                    return v;
                  }
                  Map<?, ?> sharedChild = sharedOrNull(child);
                  unique[0] |= sharedChild == null;
                  return sharedChild == null ? child : sharedChild;
                });
      } catch (UnsupportedOperationException e) {
        return null; // not a map read from JSON: left as it is
      }
    }
    if (unique[0] || SHARED_FIELDS.size() >= MAX_SHARED_FIELDS) {
      return null;
    }
    Map<?, ?> raced = SHARED_FIELDS.putIfAbsent(subtree, subtree);
    return raced == null ? subtree : raced;
  }

  /** How a field set names a list item by its uid (an owner reference). */
  private static final String UID_KEY = "\"uid\"";

  private static void pruneConfigMap(ConfigMap cm) {
    if (isPruned(cm)) {
      return;
    }
    String hash = dataHash(cm);
    cm.setData(Map.of(DATA_HASH, hash));
    cm.setBinaryData(null);
  }

  private static boolean isPruned(ConfigMap cm) {
    return cm.getData() != null
        && cm.getData().size() == 1
        && cm.getData().containsKey(DATA_HASH)
        && cm.getBinaryData() == null;
  }

  /**
   * The SHA-256 of a ConfigMap's files ({@code data} and {@code binaryData}), whether it is pruned
   * (the hash it keeps) or whole (computed).
   */
  public static String dataHash(ConfigMap cm) {
    if (isPruned(cm)) {
      return cm.getData().get(DATA_HASH);
    }
    // A desired ConfigMap, built on each reconcile from the same files: hashed once per content.
    Map<String, String> data = Optional.ofNullable(cm.getData()).orElse(Map.of());
    Map<String, String> binaryData = Optional.ofNullable(cm.getBinaryData()).orElse(Map.of());
    List<Map<String, String>> files = List.of(Map.copyOf(data), Map.copyOf(binaryData));
    String hash = DATA_HASHES.get(files);
    if (hash == null) {
      hash = digest(data, binaryData);
      if (DATA_HASHES.size() >= DATA_HASHES_KEPT) {
        DATA_HASHES.clear(); // what no Database uses any more goes
      }
      DATA_HASHES.put(files, hash);
    }
    return hash;
  }

  /** The hashes of the files last hashed, bounded; two threads may both hash one, at a cost. */
  private static final Map<List<Map<String, String>>, String> DATA_HASHES =
      new ConcurrentHashMap<>();

  private static final int DATA_HASHES_KEPT = 256;

  private static String digest(Map<String, String> data, Map<String, String> binaryData) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    feed(digest, "data", data);
    feed(digest, "binaryData", binaryData);
    return HexFormat.of().formatHex(digest.digest());
  }

  private static void feed(MessageDigest digest, String section, Map<String, String> files) {
    if (files == null || files.isEmpty()) {
      return;
    }
    digest.update(section.getBytes(StandardCharsets.UTF_8));
    for (Map.Entry<String, String> e : new TreeMap<>(files).entrySet()) {
      // Lengths before contents: no two different maps feed the same bytes.
      byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
      byte[] value =
          e.getValue() == null ? new byte[0] : e.getValue().getBytes(StandardCharsets.UTF_8);
      digest.update(intBytes(key.length));
      digest.update(key);
      digest.update(intBytes(value.length));
      digest.update(value);
    }
  }

  private static byte[] intBytes(int n) {
    return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
  }
}
