package dev.cellar.operator.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.cache.CanonicalStrings;
import dev.cellar.operator.cache.LeanMetadata;
import dev.cellar.operator.cache.SharedEmptyMaps;
import dev.cellar.operator.dependent.Certificate;
import dev.cellar.operator.dependent.PodMonitor;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The operator's client of the API server. Its reading shares what repeats in the objects it reads
 * (strings, empty maps: the informers' caches hold what it reads, docs/benchmarks.md); it asks for
 * compressed lists ({@link CompressedLists}); and its TLS prefers ChaCha20-Poly1305. The operator's
 * JVM compiles with C1 only (less memory, less CPU while converging), and C1 has none of the
 * AES-GCM intrinsics: GCM's hashing in plain Java was a third of the CPU of a restart beside 1000
 * Databases, ChaCha20 in plain Java costs a fraction of it. The server still chooses: one that
 * offers no ChaCha20 gets AES-GCM as before.
 */
public final class ApiServerClient {
  /**
   * The kinds whose watch events the operator reads, named to the client's reader of watch events
   * (which decodes an event's object by its apiVersion and kind). Left to itself, fabric8 finds
   * every kind it models through the ServiceLoader and instantiates each: some 320 classes and the
   * hundreds they pull in, their metaspace and a fifth of a second at start, for a dozen kinds
   * watched. And a kind it does not find there (the Database, cert-manager's and Prometheus's) was
   * decoded twice, as a generic resource and then converted. A kind missing here still works, the
   * slow way; {@code ApiServerClientTest} checks the workflow's kinds are all here.
   */
  static final List<Class<? extends KubernetesResource>> WATCHED_KINDS =
      List.of(
          Database.class,
          ConfigMap.class,
          Secret.class,
          Service.class,
          PersistentVolumeClaim.class,
          Pod.class,
          Event.class,
          StatefulSet.class,
          CronJob.class,
          Job.class,
          PodDisruptionBudget.class,
          NetworkPolicy.class,
          Lease.class,
          Certificate.class,
          PodMonitor.class,
          // a watch's ERROR event (410 Gone: list again) is told apart by its object being one
          Status.class);

  private ApiServerClient() {}

  /** A client configured as kubectl would be (kubeconfig, in-cluster service account). */
  public static KubernetesClient create() {
    return create(Config.autoConfigure(null), new CompressedLists());
  }

  /** A client for {@code config} whose compressed responses {@code lists} inflates. */
  public static KubernetesClient create(Config config, CompressedLists lists) {
    ObjectMapper mapper = new ObjectMapper();
    if (CanonicalStrings.enabled()) {
      mapper.registerModule(CanonicalStrings.shared().module());
    }
    if (SharedEmptyMaps.enabled()) {
      mapper.registerModule(SharedEmptyMaps.module());
    }
    if (LeanMetadata.enabled()) {
      mapper.registerModule(LeanMetadata.module());
    }
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new ChaChaFirst(config.getTlsVersions()))
        .withHttpClientBuilderConsumer(
            builder -> builder.addOrReplaceInterceptor(CompressedLists.NAME, lists))
        .withKubernetesSerialization(serialization(mapper))
        .build();
  }

  /** The reader and writer of objects over {@code mapper}, knowing {@link #WATCHED_KINDS} only. */
  static KubernetesSerialization serialization(ObjectMapper mapper) {
    KubernetesSerialization serialization = new KubernetesSerialization(mapper, false);
    WATCHED_KINDS.forEach(serialization::registerKubernetesResource);
    return serialization;
  }

  /** The JDK's default cipher suites, the ChaCha20 ones first, the rest in their order. */
  static String[] chaChaFirst(String[] suites) {
    return Arrays.stream(suites)
        .sorted(Comparator.comparing(suite -> !suite.contains("CHACHA20")))
        .toArray(String[]::new);
  }

  /** fabric8's JDK client, whose TLS offers ChaCha20 first (fabric8 sets only the versions). */
  static final class ChaChaFirst extends JdkHttpClientFactory {
    private final String[] protocols;

    ChaChaFirst(TlsVersion[] versions) {
      this.protocols =
          versions == null || versions.length == 0
              ? null
              : Arrays.stream(versions).map(TlsVersion::javaName).toArray(String[]::new);
    }

    @Override
    protected void additionalConfig(java.net.http.HttpClient.Builder builder) {
      String[] suites;
      try {
        suites = SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites();
      } catch (NoSuchAlgorithmException e) {
        return; // no TLS provider to ask: fabric8's defaults stand
      }
      builder.sslParameters(new SSLParameters(chaChaFirst(suites), protocols));
    }
  }
}
