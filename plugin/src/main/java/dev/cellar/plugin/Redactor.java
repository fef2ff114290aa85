package dev.cellar.plugin;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Takes secrets out of what {@code kubectl cellar report} writes: every Secret value (its keys
 * stay, so a missing key still shows), the last-applied annotation of Secrets (which holds the
 * values), literal values of environment variables whose names look secret, and, in every text of
 * the report (logs included), any occurrence of a secret-looking value of the Secrets it saw.
 */
public final class Redactor {
  public static final String REDACTED = "REDACTED";

  /** Names of keys and variables that hold secrets. */
  static final Pattern SECRET_NAME =
      Pattern.compile("(?i).*(password|passwd|secret|token|key|uri|credential|cert|pem).*");

  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  /** Values shorter than this are not scrubbed from text: they would match everywhere. */
  static final int MIN_SCRUBBED = 6;

  private final Set<String> values = new LinkedHashSet<>();

  /** A copy of {@code secret} without its values; remembers them to scrub text. */
  public Secret secret(Secret secret) {
    Secret copy = io.fabric8.kubernetes.client.utils.Serialization.clone(secret);
    copy.getMetadata().setManagedFields(null);
    remember(secret);
    if (copy.getData() != null) {
      copy.setData(redactValues(copy.getData()));
    }
    if (copy.getStringData() != null) {
      copy.setStringData(redactValues(copy.getStringData()));
    }
    if (copy.getMetadata().getAnnotations() != null
        && copy.getMetadata().getAnnotations().containsKey(LAST_APPLIED)) {
      copy.getMetadata().getAnnotations().put(LAST_APPLIED, REDACTED);
    }
    return copy;
  }

  /** Remembers the secret-looking values of {@code secret} (decoded) without copying it. */
  public void remember(Secret secret) {
    if (secret.getData() != null) {
      secret
          .getData()
          .forEach(
              (k, v) -> {
                if (SECRET_NAME.matcher(k).matches() && v != null) {
                  try {
                    add(new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8));
                  } catch (IllegalArgumentException e) {
                    add(v);
                  }
                }
              });
    }
    if (secret.getStringData() != null) {
      secret
          .getStringData()
          .forEach(
              (k, v) -> {
                if (SECRET_NAME.matcher(k).matches()) {
                  add(v);
                }
              });
    }
  }

  private void add(String value) {
    if (value != null && value.strip().length() >= MIN_SCRUBBED) {
      values.add(value.strip());
    }
  }

  private static Map<String, String> redactValues(Map<String, String> data) {
    Map<String, String> out = new LinkedHashMap<>();
    data.keySet().forEach(k -> out.put(k, REDACTED));
    return out;
  }

  /**
   * A copy of any other object with literal secret-looking env values replaced (pods, their
   * templates in StatefulSets, Jobs and CronJobs); other kinds come back as they are.
   */
  public <T extends HasMetadata> T object(T object) {
    if (object instanceof Secret s) {
      @SuppressWarnings("unchecked")
      T redacted = (T) secret(s);
      return redacted;
    }
    T copy = io.fabric8.kubernetes.client.utils.Serialization.clone(object);
    copy.getMetadata().setManagedFields(null);
    PodSpec spec = null;
    if (copy instanceof Pod p) {
      spec = p.getSpec();
    } else if (copy instanceof StatefulSet s && s.getSpec() != null) {
      spec = s.getSpec().getTemplate().getSpec();
    } else if (copy instanceof Job j && j.getSpec() != null) {
      spec = j.getSpec().getTemplate().getSpec();
    } else if (copy instanceof CronJob c && c.getSpec() != null) {
      spec = c.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
    }
    if (spec != null) {
      Stream.of(spec.getContainers(), spec.getInitContainers())
          .filter(java.util.Objects::nonNull)
          .flatMap(List::stream)
          .map(Container::getEnv)
          .filter(java.util.Objects::nonNull)
          .flatMap(List::stream)
          .forEach(this::env);
    }
    return copy;
  }

  private void env(EnvVar env) {
    if (env.getValue() != null && SECRET_NAME.matcher(env.getName()).matches()) {
      add(env.getValue());
      env.setValue(REDACTED);
    }
  }

  /** {@code text} with every remembered value replaced, the longest first. */
  public String text(String text) {
    if (text == null || values.isEmpty()) {
      return text;
    }
    List<String> longestFirst = new ArrayList<>(values);
    longestFirst.sort(Comparator.comparingInt(String::length).reversed());
    String out = text;
    for (String v : longestFirst) {
      out = out.replace(v, REDACTED);
    }
    return out;
  }
}
