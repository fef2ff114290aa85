package dev.cellar.operator.runtime;

import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits at start-up until the API server answers and serves the Database API, logging one line per
 * try with what to do, and backing off up to {@link #MAX_DELAY}. Starting JOSDK earlier would fail
 * with a stack trace; exiting would only turn the same wait into a crash loop.
 */
public final class ApiServerWait {
  private static final Logger log = LoggerFactory.getLogger(ApiServerWait.class);
  static final Duration FIRST_DELAY = Duration.ofSeconds(1);
  static final Duration MAX_DELAY = Duration.ofSeconds(30);

  /** One look at the API server: empty when it is ready, else what is wrong and what to do. */
  @FunctionalInterface
  interface Probe {
    Optional<String> problem();
  }

  /** The pause between tries; a parameter so that tests need not wait. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private final Probe probe;
  private final Sleeper sleeper;

  ApiServerWait(Probe probe, Sleeper sleeper) {
    this.probe = probe;
    this.sleeper = sleeper;
  }

  /**
   * Blocks until the API server at the client's URL serves {@code group/version} {@code plural}.
   */
  public static void until(KubernetesClient client, String groupVersion, String plural)
      throws InterruptedException {
    // A client of its own without fabric8's request retries, which would hide each try for up to
    // a minute and a half.
    try (KubernetesClient once =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      new ApiServerWait(probe(once, groupVersion, plural), d -> Thread.sleep(d.toMillis())).run();
    }
  }

  static Probe probe(KubernetesClient client, String groupVersion, String plural) {
    Supplier<String> where = () -> "the API server at " + client.getMasterUrl();
    return () -> {
      APIResourceList resources;
      try {
        resources = client.getApiResources(groupVersion);
      } catch (RuntimeException e) {
        return Optional.of(
            where.get()
                + " does not answer ("
                + ErrorMessages.oneLine(e)
                + "): check the kubeconfig or the in-cluster network");
      }
      boolean served =
          resources != null
              && resources.getResources().stream().anyMatch(r -> plural.equals(r.getName()));
      return served
          ? Optional.empty()
          : Optional.of(
              where.get()
                  + " does not serve "
                  + plural
                  + "."
                  + groupVersion
                  + ": install the CRD (kubectl apply -f deploy/crd/)");
    };
  }

  /** Tries until the probe finds no problem; returns the number of tries that failed. */
  int run() throws InterruptedException {
    Duration delay = FIRST_DELAY;
    int failures = 0;
    for (Optional<String> problem = probe.problem();
        problem.isPresent();
        problem = probe.problem()) {
      failures++;
      log.warn("{}; retrying in {} s", problem.get(), delay.toSeconds());
      sleeper.sleep(delay);
      delay = delay.multipliedBy(2).compareTo(MAX_DELAY) > 0 ? MAX_DELAY : delay.multipliedBy(2);
    }
    if (failures > 0) {
      log.info("the API server answers after {} failed tries", failures);
    }
    return failures;
  }
}
