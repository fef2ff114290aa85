package dev.cellar.e2e;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A scenario that needs only a cluster (of real nodes, for some), not the local cluster's control
 * plane or its kwok nodes: the JUnit tag {@value #TAG}. CI runs these once, on kind ({@code
 * e2e/kind/suite}: {@code -Dgroups=kind}), and leaves them out of its local-cluster run ({@code
 * -DexcludedGroups=kind}); the scenarios without the tag (the fuzzer, control-plane restarts, the
 * operator process killed in a burst) need the local cluster and skip themselves elsewhere. A plain
 * {@code mvn verify} runs every scenario on the cluster of the run.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(RunsOnKind.TAG)
@interface RunsOnKind {
  String TAG = "kind";
}
