package dev.cellar.e2e;

import java.util.Comparator;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The suite's class order (junit-platform.properties): the classes that share the real node ({@link
 * SharesRealNode}) first, so that one start of the node serves them all; the others after, each
 * group in the order it was given.
 */
public class RealNodeFirst implements ClassOrderer {
  @Override
  public void orderClasses(ClassOrdererContext context) {
    // A stable sort: within each group the order stays as given.
    context
        .getClassDescriptors()
        .sort(Comparator.comparing(c -> c.isAnnotated(SharesRealNode.class) ? 0 : 1));
  }
}
