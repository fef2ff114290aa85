package dev.cellar.operator.informers;

import java.util.ServiceLoader;

/** The one binding of {@link Informers} on the class path, found once. */
final class Binding {
  static final Informers INFORMERS =
      ServiceLoader.load(Informers.class)
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no binding of "
                          + Informers.class.getName()
                          + " on the class path (META-INF/services)"));

  private Binding() {}
}
