package dev.cellar.operator;

import dev.cellar.api.v1.Database;
import java.util.LinkedHashMap;
import java.util.Map;

/** The one label set every child carries; informers select on {@link #MANAGED_BY}. */
public final class Labels {
  public static final String NAME = "app.kubernetes.io/name";
  public static final String INSTANCE = "app.kubernetes.io/instance";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String PART_OF = "app.kubernetes.io/part-of";

  public static final String OPERATOR = "cellar-operator";

  /** The label selector of every informer on children, so unrelated objects are never cached. */
  public static final String MANAGED_SELECTOR = MANAGED_BY + "=" + OPERATOR;

  /** What a child is for. */
  public enum Component {
    DATABASE("database"),
    BACKUP("backup");

    private final String value;

    Component(String value) {
      this.value = value;
    }

    public String value() {
      return value;
    }
  }

  private Labels() {}

  /** All labels of a child of {@code db}. */
  public static Map<String, String> of(Database db, Component component) {
    Map<String, String> labels = new LinkedHashMap<>(selector(db, component));
    labels.put(MANAGED_BY, OPERATOR);
    labels.put(PART_OF, "cellar");
    return labels;
  }

  /** The labels that select {@code db}'s pods of one component (stable for a StatefulSet). */
  public static Map<String, String> selector(Database db, Component component) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(NAME, db.getSpec().getEngine().value());
    labels.put(INSTANCE, db.getMetadata().getName());
    labels.put(COMPONENT, component.value());
    return labels;
  }
}
