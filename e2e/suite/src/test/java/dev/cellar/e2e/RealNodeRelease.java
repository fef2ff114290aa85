package dev.cellar.e2e;

import dev.cellar.testkit.SharedRealNode;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Stops the real node, if this JVM started it, before the first class that does not share it
 * ({@link SharesRealNode}), and at the latest when the suite ends. Registered for every class of
 * the suite (junit-platform.properties: extension autodetection, META-INF/services).
 */
public class RealNodeRelease implements BeforeAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    if (!testClass.isAnnotationPresent(SharesRealNode.class)) {
      SharedRealNode.release();
      return;
    }
    // Closed when the engine's root context closes: after the last class of the suite.
    context
        .getRoot()
        .getStore(ExtensionContext.Namespace.create(RealNodeRelease.class))
        .getOrComputeIfAbsent(
            "release at the end",
            k -> (ExtensionContext.Store.CloseableResource) SharedRealNode::release);
  }
}
