package dev.cellar.kubelean;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;

/** The tests' own custom resource: what Cellar's Database is to the operator's client. */
@Group("kubelean.cellar.dev")
@Version("v1")
public class Shelf extends CustomResource<Shelf.Spec, Void> implements Namespaced {
  public static class Spec {
    private String engine;

    public String getEngine() {
      return engine;
    }

    public void setEngine(String engine) {
      this.engine = engine;
    }
  }
}
