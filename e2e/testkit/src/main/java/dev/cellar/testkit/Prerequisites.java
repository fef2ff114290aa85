package dev.cellar.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.TestAbortedException;

/**
 * What a test needs from the machine it runs on (the real node, kind, root, a tool such as helm,
 * kube-score or shellcheck), and what happens when that is missing: on a developer's machine the
 * test is skipped, saying what is missing and how to provide it; in CI ({@code CI=true}, which
 * .ci/run sets) it fails with the same words. A skip in CI would pass a run that proved nothing,
 * and nobody reads the skipped count of a green run.
 *
 * <p>For what a test needs from the machine only. A scenario that CI never selects where it cannot
 * run (one for the local cluster only, against kind: CI runs kind's with {@code -Dgroups=kind})
 * skips itself with a plain assumption.
 */
public final class Prerequisites {
  private static final Prerequisites OF_THIS_PROCESS = new Prerequisites(System::getenv);

  private final Function<String, String> environment;

  /** With {@code environment} for the process's environment variables (a test gives its own). */
  Prerequisites(Function<String, String> environment) {
    this.environment = environment;
  }

  /**
   * Skips the test, or in CI fails it, unless {@code present}.
   *
   * @param what what the test needs, e.g. "helm at ~/.cache/cellar/bin/tools/helm"
   * @param how how to provide it, e.g. "bin/test builds it (e2e/cluster/build.sh tools)"
   */
  public static void require(boolean present, String what, String how) {
    OF_THIS_PROCESS.check(present, what, how);
  }

  /**
   * An executable that {@code e2e/cluster/build.sh tools} builds (helm, kube-score), at {@code
   * path}. A missing one is asked of build.sh first, which waits for a build under way (bin/test
   * builds the tools beside the first tests instead of before them) or builds it.
   */
  public static void requireTool(Path path) {
    if (!Files.isExecutable(path)) {
      Path root = LocalCluster.repoRoot();
      LocalCluster.exec(
          List.of(root.resolve("e2e/cluster/build.sh").toString(), "tools"), root.toFile());
    }
    require(
        Files.isExecutable(path),
        path.getFileName() + " at " + path,
        "bin/test builds it (e2e/cluster/build.sh tools)");
  }

  /**
   * The local cluster's real node: {@code CELLAR_REAL_NODE=true}, which bin/test sets when it runs
   * as root (the node runs containerd and the database images built as root).
   */
  public static void requireRealNode() {
    OF_THIS_PROCESS.checkRealNode();
  }

  /**
   * For a test class that needs the real node on the local cluster:
   * {@code @ExtendWith(Prerequisites.RealNode.class)}. A condition, evaluated before any
   * extension's beforeAll, so a class skipped for want of the node starts no operator and makes no
   * namespace; in CI a condition that throws fails the class.
   */
  public static final class RealNode implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      return OF_THIS_PROCESS.realNodeCondition();
    }
  }

  ConditionEvaluationResult realNodeCondition() {
    try {
      checkRealNode();
      return ConditionEvaluationResult.enabled("CELLAR_REAL_NODE=true");
    } catch (TestAbortedException skipped) {
      return ConditionEvaluationResult.disabled(skipped.getMessage());
    }
  }

  void checkRealNode() {
    check(
        "true".equals(environment.apply("CELLAR_REAL_NODE")),
        "the real node (CELLAR_REAL_NODE=true)",
        "run bin/test as root, which builds the node's packages and images and sets it");
  }

  void check(boolean present, String what, String how) {
    if (present) {
      return;
    }
    if (ci()) {
      throw new AssertionError(
          "CI=true and this test needs " + what + ", which is missing: " + how);
    }
    String reason = "needs " + what + ", which is missing: " + how + " (with CI=true this fails)";
    // Said on the console too: Maven's summary counts skips without saying why.
    System.err.println("skipped: " + reason);
    Assumptions.abort(reason);
  }

  /** Whether this is a CI run, where a missing prerequisite fails. */
  boolean ci() {
    return "true".equalsIgnoreCase(environment.apply("CI"));
  }
}
