package dev.cellar.operator.prometheus;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Objects;

/**
 * The Prometheus Operator's PodMonitor (monitoring.coreos.com/v1), only the fields Cellar sets. Its
 * CRD belongs to the Prometheus Operator; Cellar never installs it.
 */
@Group("monitoring.coreos.com")
@Version("v1")
@Kind("PodMonitor")
@Plural("podmonitors")
public class PodMonitor extends CustomResource<PodMonitor.Spec, Void> implements Namespaced {
  /** Which pods, and which of their ports. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Spec {
    private LabelSelector selector;
    private List<Endpoint> podMetricsEndpoints;

    public Spec() {}

    public Spec(LabelSelector selector, List<Endpoint> podMetricsEndpoints) {
      this.selector = selector;
      this.podMetricsEndpoints = podMetricsEndpoints;
    }

    public LabelSelector getSelector() {
      return selector;
    }

    public void setSelector(LabelSelector selector) {
      this.selector = selector;
    }

    public List<Endpoint> getPodMetricsEndpoints() {
      return podMetricsEndpoints;
    }

    public void setPodMetricsEndpoints(List<Endpoint> podMetricsEndpoints) {
      this.podMetricsEndpoints = podMetricsEndpoints;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Spec s
          && Objects.equals(selector, s.selector)
          && Objects.equals(podMetricsEndpoints, s.podMetricsEndpoints);
    }

    @Override
    public int hashCode() {
      return Objects.hash(selector, podMetricsEndpoints);
    }
  }

  /** One scraped port of the selected pods. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Endpoint {
    private String port;
    private String path;
    private String interval;

    public Endpoint() {}

    public Endpoint(String port, String path, String interval) {
      this.port = port;
      this.path = path;
      this.interval = interval;
    }

    public String getPort() {
      return port;
    }

    public void setPort(String port) {
      this.port = port;
    }

    public String getPath() {
      return path;
    }

    public void setPath(String path) {
      this.path = path;
    }

    public String getInterval() {
      return interval;
    }

    public void setInterval(String interval) {
      this.interval = interval;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Endpoint e
          && Objects.equals(port, e.port)
          && Objects.equals(path, e.path)
          && Objects.equals(interval, e.interval);
    }

    @Override
    public int hashCode() {
      return Objects.hash(port, path, interval);
    }
  }
}
