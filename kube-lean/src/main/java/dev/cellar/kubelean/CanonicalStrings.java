package dev.cellar.kubelean;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * One {@code String} instance per distinct short string read from the API server. Every cached
 * object repeats the same namespace, label keys and values, owner names and uids, images, condition
 * types and reasons; each JSON read makes new copies, and strings were 43 % of the live heap at 500
 * Databases (docs/performance.md, Canonical strings). Deserialized strings go through {@link
 * #canonical}, so the cached objects share them.
 *
 * <p>A {@link LossyTable} of {@value #SLOTS} slots rather than a map: its own cost is fixed (256
 * KiB of references) and what it keeps alive that no object needs any more is bounded by its size
 * times {@value #MAX_LENGTH} characters. Containers' commands, arguments and variables (scripts) go
 * to a second table of {@value #SCRIPT_SLOTS} slots whatever their length, where any string may
 * take any slot: with two slots per hash, three scripts of one pair evicted each other on every
 * read, and at 200 Databases the cached CronJobs held 89 instances of two of the three verification
 * scripts (1.7 MB; a heap dump of bin/bench; docs/performance.md, Canonical strings). Not {@link
 * String#intern}: its table is the JVM's own, unbounded, and not measured here.
 *
 * <p>Racy by design, as the lossy table: a {@code String} is immutable and safely published through
 * a data race (its fields are final).
 */
public final class CanonicalStrings {
  /**
   * Strings longer than this are returned as they are: long values (certificates, kubectl's
   * last-applied-configuration) are unique per object and would only fill the table.
   */
  static final int MAX_LENGTH = 256;

  static final int SLOTS = 1 << 16;

  /**
   * Containers' {@code command} and {@code args} and environment variables' {@code value}, whatever
   * their length: the same in every pod template of an engine, and once the largest strings in the
   * cache (the backup CronJobs carried the backup and verification scripts inline, 26 KB, before
   * the scripts moved to one ConfigMap per engine). Kept apart, in a few slots, so that they
   * neither evict nor are evicted by the many short strings.
   */
  private static final Set<String> SCRIPT_FIELDS = Set.of("command", "args", "value");

  static final int SCRIPT_SLOTS = 64;
  static final int SCRIPT_MAX_LENGTH = 1 << 20;

  /**
   * Fields whose values are unique per object version and never repeated elsewhere: interning them
   * would only evict strings that repeat.
   */
  private static final Set<String> UNIQUE_FIELDS = Set.of("resourceVersion");

  /** The two slots per hash of short strings; null for the scripts' table. */
  private final LossyTable<String> pairs;

  /** The scripts' slots, any string in any one (a small table, searched whole); null otherwise. */
  private final String[] slots;

  private final int maxLength;

  /** A table of {@code slots} slots (a power of two, at least 2) for strings of up to 256 chars. */
  CanonicalStrings(int slots) {
    this(slots, MAX_LENGTH, false);
  }

  CanonicalStrings(int slots, int maxLength, boolean anySlot) {
    if (slots < 2 || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two: " + slots);
    }
    this.pairs = anySlot ? null : new LossyTable<>(slots);
    this.slots = anySlot ? new String[slots] : null;
    this.maxLength = maxLength;
  }

  private static final CanonicalStrings SHARED = new CanonicalStrings(SLOTS);

  /** The table shared by the operator's deserialization. */
  public static CanonicalStrings shared() {
    return SHARED;
  }

  /**
   * Off with {@code -Dcellar.canonicalStrings=false} (to measure what it saves, or as an escape
   * hatch).
   */
  public static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.canonicalStrings"));
  }

  /** {@code s}, or an equal string this table returned before. */
  public String canonical(String s) {
    if (s == null || s.length() > maxLength) {
      return s;
    }
    if (s.isEmpty()) {
      return "";
    }
    return pairs == null ? anySlot(s) : pairs.shared(s, s.hashCode(), UnaryOperator.identity());
  }

  /**
   * The small table's search: every slot in turn (String.equals compares lengths first, so a script
   * is read whole only against an equal-length one), then the first empty slot; once all are taken,
   * the hash's slot is replaced. Two threads may both add one string: the first found wins.
   */
  private String anySlot(String s) {
    int empty = -1;
    for (int i = 0; i < slots.length; i++) {
      String slot = slots[i];
      if (slot == null) {
        if (empty < 0) {
          empty = i;
        }
      } else if (s.equals(slot)) {
        return slot;
      }
    }
    int h = s.hashCode();
    slots[empty >= 0 ? empty : (h ^ (h >>> 16)) & (slots.length - 1)] = s;
    return s;
  }

  /**
   * A Jackson module whose string deserializer returns canonical strings: give it to the client's
   * {@code ObjectMapper}, and every string field, list and map value of the objects the informers
   * receive (metadata, labels, templates, statuses) comes from this table. Map keys are field names
   * and shared by Jackson already.
   */
  public SimpleModule module() {
    return module(new CanonicalStrings(SCRIPT_SLOTS, SCRIPT_MAX_LENGTH, true));
  }

  /** The module, with {@code scripts} for containers' commands and arguments. */
  SimpleModule module(CanonicalStrings scripts) {
    SimpleModule module = new SimpleModule("cellar-canonical-strings");
    module.addDeserializer(String.class, new Deserializer(this, scripts, this));
    return module;
  }

  private static final class Deserializer extends StdScalarDeserializer<String>
      implements ContextualDeserializer {
    private final transient CanonicalStrings shortStrings;
    private final transient CanonicalStrings scripts;

    /** Where this field's values go: one of the two tables, or null (returned as they are). */
    private final transient CanonicalStrings table;

    Deserializer(CanonicalStrings shortStrings, CanonicalStrings scripts, CanonicalStrings table) {
      super(String.class);
      this.shortStrings = shortStrings;
      this.scripts = scripts;
      this.table = table;
    }

    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      String s = StringDeserializer.instance.deserialize(p, ctxt);
      if (table == null) {
        return s;
      }
      return s != null && s.length() <= MAX_LENGTH ? shortStrings.canonical(s) : table.canonical(s);
    }

    @Override
    public JsonDeserializer<?> createContextual(
        DeserializationContext ctxt, BeanProperty property) {
      String name = property == null ? "" : property.getName();
      CanonicalStrings wanted =
          UNIQUE_FIELDS.contains(name)
              ? null
              : SCRIPT_FIELDS.contains(name) ? scripts : shortStrings;
      return wanted == table ? this : new Deserializer(shortStrings, scripts, wanted);
    }
  }
}
