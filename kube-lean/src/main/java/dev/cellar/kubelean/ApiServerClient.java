package dev.cellar.kubelean;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.security.KeyManagementException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * The operator's client of the API server. Its reading shares what repeats in the objects it reads
 * (strings, empty maps, which the informers' caches hold: docs/performance.md, Canonical strings)
 * and reads a watch event in one pass ({@link ApiServerSerialization}); it asks for compressed
 * lists ({@link CompressedLists}); and its TLS prefers ChaCha20-Poly1305. The operator's JVM
 * compiles with C1 only (less memory, less CPU while converging), and C1 has none of the AES-GCM
 * intrinsics: GCM's hashing in plain Java was a third of the CPU of a restart beside 1000
 * Databases, ChaCha20 in plain Java costs a fraction of it. The server still chooses: one that
 * offers no ChaCha20 gets AES-GCM as before.
 */
public final class ApiServerClient {
  private ApiServerClient() {}

  /**
   * The kinds the operator reads: those it watches ({@link ApiServerSerialization} knows only
   * these), and among them its primary resources, which it keeps in a {@link
   * CachePruning#primaryStore} and reads without their managedFields ({@link LeanMetadata}).
   */
  public record Kinds(List<Class<? extends KubernetesResource>> watched, Set<Class<?>> primary) {}

  /** A client configured as kubectl would be (kubeconfig, in-cluster service account). */
  public static KubernetesClient create(Kinds kinds) {
    return create(Config.autoConfigure(null), new CompressedLists(), kinds);
  }

  /** A client for {@code config} whose compressed responses {@code lists} inflates. */
  public static KubernetesClient create(Config config, CompressedLists lists, Kinds kinds) {
    config.setOnlyHttpWatches(httpWatches());
    ApiServerSerialization serialization =
        new ApiServerSerialization(mapper(kinds.primary()), kinds.watched());
    WatchLines watches = new WatchLines(serialization);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new ApiServerHttp(config))
        .withHttpClientBuilderConsumer(
            builder ->
                builder
                    .addOrReplaceInterceptor(CompressedLists.NAME, lists)
                    .addOrReplaceInterceptor(WatchLines.NAME, watches))
        .withKubernetesSerialization(serialization)
        .build();
  }

  /**
   * The client's JSON mapper: what it reads shares strings and empty maps, and skips what the
   * caches drop (managedFields of the kinds whose caches keep none; in reads for a cache, what
   * {@link CachePruning} drops).
   */
  static ObjectMapper mapper(Set<Class<?>> primaryKinds) {
    ObjectMapper mapper = new ObjectMapper();
    if (CanonicalStrings.enabled()) {
      mapper.registerModule(CanonicalStrings.shared().module());
    }
    if (SharedEmptyMaps.enabled()) {
      mapper.registerModule(SharedEmptyMaps.module());
    }
    if (LeanMetadata.enabled()) {
      mapper.registerModule(LeanMetadata.module(primaryKinds));
    }
    if (CacheReads.enabled()) {
      mapper.registerModule(CacheReads.module());
    }
    return mapper;
  }

  /**
   * Whether watches are HTTP/2 streams on the client's one connection (the default) rather than a
   * WebSocket each, as fabric8 would have them. Each WebSocket is a TLS connection of its own with
   * its own buffers, about 100 KB of heap for each of the operator's 14 watches, handshaken again
   * each time the API server ends the watch (docs/performance.md, Watches as HTTP/2 streams).
   * fabric8's reading of such a stream cannot be used as it is: {@link WatchLines} reads the events
   * instead. Off with {@code -Dcellar.httpWatches=false}.
   */
  static boolean httpWatches() {
    return !"false".equals(System.getProperty("cellar.httpWatches"));
  }

  /** The JDK's default cipher suites, the ChaCha20 ones first, the rest in their order. */
  static String[] chaChaFirst(String[] suites) {
    return Arrays.stream(suites)
        .sorted(Comparator.comparing(suite -> !suite.contains("CHACHA20")))
        .toArray(String[]::new);
  }

  /**
   * fabric8's JDK client, whose TLS offers ChaCha20 first (fabric8 sets only the versions), trusts
   * the cluster's CA alone ({@link ClusterCaTrust}) and hands watch events over as strings ({@link
   * WatchText}).
   */
  static final class ApiServerHttp extends JdkHttpClientFactory {
    private final String[] protocols;

    ApiServerHttp(Config config) {
      TlsVersion[] versions = config.getTlsVersions();
      this.protocols =
          versions == null || versions.length == 0
              ? null
              : Arrays.stream(versions).map(TlsVersion::javaName).toArray(String[]::new);
    }

    @Override
    public io.fabric8.kubernetes.client.http.HttpClient.Builder newBuilder(Config config) {
      io.fabric8.kubernetes.client.http.HttpClient.Builder builder = super.newBuilder(config);
      ClusterCaTrust.apply(config, builder);
      return builder;
    }

    @Override
    protected java.net.http.HttpClient.Builder createNewHttpClientBuilder() {
      return WatchText.wrap(super.createNewHttpClientBuilder());
    }

    @Override
    protected void additionalConfig(java.net.http.HttpClient.Builder builder) {
      String[] suites;
      try {
        // A context of its own with no trust managers: the default context would load the JDK's
        // trust store only to be asked for its cipher suites.
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[0], new TrustManager[0], null);
        suites = context.getDefaultSSLParameters().getCipherSuites();
      } catch (NoSuchAlgorithmException | KeyManagementException e) {
        return; // no TLS provider to ask: fabric8's defaults stand
      }
      builder.sslParameters(new SSLParameters(chaChaFirst(suites), protocols));
    }
  }
}
