package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.deletion.DataRetention;
import dev.cellar.operator.guard.WriteBudget;
import dev.cellar.operator.informers.Informers;
import dev.cellar.operator.topology.Children;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResourceConfig;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.PrimaryToSecondaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A child of a Database whose name follows from the Database's {@link Topology}, so JOSDK finds it
 * without computing the desired state.
 */
abstract class DatabaseChild<R extends HasMetadata>
    extends KubernetesDependentResource<R, Database> {

  DatabaseChild(Class<R> type) {
    super(type);
  }

  /** The child's name, from the topology. */
  protected abstract String childName(Topology topology);

  @Override
  protected ResourceID targetSecondaryResourceID(Database db, Context<Database> context) {
    return new ResourceID(childName(Topology.of(db)), db.getMetadata().getNamespace());
  }

  /** The child, by its name: {@link Children} says why not JOSDK's lookup. */
  @Override
  public Optional<R> getSecondaryResource(Database db, Context<Database> context) {
    return eventSource().flatMap(source -> Children.named(db, source, childName(Topology.of(db))));
  }

  /**
   * JOSDK's event source for this child, one of the operator's informers of children ({@link
   * Informers#children}), which finds a Database's children by their names. The same steps as
   * JOSDK's own, plus that.
   */
  @Override
  protected InformerEventSource<R, Database> createEventSource(
      EventSourceContext<Database> context) {
    var config =
        informerConfigurationBuilder(context)
            .withSecondaryToPrimaryMapper(getSecondaryToPrimaryMapper(context).orElseThrow())
            .withName(name());
    configuration()
        .map(KubernetesDependentResourceConfig::informerConfig)
        .ifPresent(config::updateFrom);
    PrimaryToSecondaryMapper<Database> byName =
        db -> {
          String namespace = db.getMetadata().getNamespace();
          Set<ResourceID> ids = new HashSet<>();
          informerNames(Topology.of(db)).forEach(name -> ids.add(new ResourceID(name, namespace)));
          return ids;
        };
    config.withPrimaryToSecondaryMapper(byName);
    configureInformer(config, context);
    var eventSource = Informers.bound().children(config, context, nameAlone());
    setEventSource(eventSource);
    return eventSource;
  }

  /**
   * The names of a Database's children in this child's informer: its own, and those of the children
   * whose dependents share its informer. A Database's children are found by these names ({@link
   * Informers#children}), not through an index JOSDK would keep for each informer (at 500 Databases
   * those indexes held 2 MB: docs/performance.md, Children found by name).
   */
  protected Set<String> informerNames(Topology topology) {
    return Set.of(childName(topology));
  }

  /** Whether a child of the right name is the Database's without mapping back to it: see there. */
  protected boolean nameAlone() {
    return false;
  }

  /** The children of this kind found equal to their desired state, and as what. */
  private final Informers.Matches knownMatches = Informers.bound().matches();

  /**
   * What this child's desired state is built from, for a dependent that can say so more cheaply
   * than building it; empty (the default) when the desired state itself is the key. Everything its
   * {@code desired} reads must be in it: a child known to match these inputs is not compared again
   * ({@link #match(HasMetadata, Database, Context)}).
   */
  protected Optional<List<Object>> inputs(Database db, Context<Database> context) {
    return Optional.empty();
  }

  /** What a desired state may read of the Database itself: the spec by its generation. */
  static List<Object> databaseInputs(Database db) {
    ObjectMeta meta = db.getMetadata();
    return Arrays.asList(
        meta.getUid(), meta.getGeneration(), meta.getLabels(), meta.getAnnotations());
  }

  /**
   * For a dependent that states its {@link #inputs}: a child that matched the desired state of the
   * same inputs and has not changed since matches without its desired state being built. Building
   * the StatefulSet's and the CronJob's was 11 % of the operator's CPU and 30 % of what it
   * allocated while 500 Databases converged (docs/performance.md, Matches remembered), and most
   * reconciles then come from the children's status, which changes no input.
   */
  @Override
  public Matcher.Result<R> match(R actual, Database db, Context<Database> context) {
    Optional<List<Object>> inputs = inputs(db, context);
    if (inputs.isEmpty()) {
      return super.match(actual, db, context);
    }
    int wanted = inputs.get().hashCode();
    if (knownMatches.matched(actual, wanted)) {
      return Matcher.Result.nonComputed(true);
    }
    // Through this class's comparison, which reads a pruned child whole.
    Matcher.Result<R> result = match(actual, desired(db, context), db, context);
    if (result.matched()) {
      knownMatches.remember(actual, wanted);
    }
    return result;
  }

  /**
   * JOSDK's comparison, skipped for a child that matched this same desired state and has not
   * changed since ({@link Informers#matches}). The hash is taken before JOSDK adds its metadata to
   * {@code desired}.
   */
  @Override
  public Matcher.Result<R> match(R actual, R desired, Database db, Context<Database> context) {
    int wanted = desired.hashCode();
    if (knownMatches.matched(actual, wanted)) {
      return Matcher.Result.computed(true, desired);
    }
    // The cache keeps part of some children: those are compared as the server has them. One
    // deleted meanwhile does not match; the update recreates it.
    R whole =
        Informers.bound().partial(actual)
            ? read(actual.getMetadata().getNamespace(), actual.getMetadata().getName(), context)
                .orElse(null)
            : actual;
    if (whole == null) {
      return Matcher.Result.computed(false, desired);
    }
    Matcher.Result<R> result = super.match(whole, desired, db, context);
    if (result.matched()) {
      knownMatches.remember(whole, wanted);
    }
    return result;
  }

  /**
   * What Cellar just wrote matches the desired state it wrote, for the inputs it was built from:
   * the next reconcile need not compare it (nor read it whole, {@link Informers#partial}).
   */
  private R written(R written, Database db, Context<Database> context) {
    if (written != null && written.getMetadata() != null) {
      inputs(db, context).ifPresent(i -> knownMatches.remember(written, i.hashCode()));
    }
    return written;
  }

  /**
   * What Cellar reads of a child's metadata, for the informers' update filters: labels, the
   * annotations {@code annotationRead} keeps, owners, finalizers and the deletion.
   */
  static List<Object> metadataRead(ObjectMeta meta, Predicate<String> annotationRead) {
    Map<String, String> annotations = new TreeMap<>();
    if (meta.getAnnotations() != null) {
      meta.getAnnotations().entrySet().stream()
          .filter(e -> annotationRead.test(e.getKey()))
          .forEach(e -> annotations.put(e.getKey(), e.getValue()));
    }
    return Arrays.asList(
        meta.getLabels(),
        annotations,
        meta.getOwnerReferences(),
        meta.getFinalizers(),
        meta.getDeletionTimestamp());
  }

  /** What a child's informer needs beyond {@link #createEventSource}'s; nothing by default. */
  protected void configureInformer(
      InformerEventSourceConfiguration.Builder<R> config, EventSourceContext<Database> context) {}

  /** Every write of a child spends from its {@link WriteBudget}, so no spec can loop. */
  @Override
  public R create(R desired, Database db, Context<Database> context) {
    return createNew(desired, db, context);
  }

  private R createNew(R desired, Database db, Context<Database> context) {
    WriteBudget.spend(db, resourceType().getSimpleName() + " " + childName(Topology.of(db)));
    return written(super.create(desired, db, context), db, context);
  }

  /**
   * Creates {@code desired}, or, when an object of that name exists already, returns what {@code
   * existing} makes of it: one the informer does not see (a user's, without Cellar's labels, or one
   * written before Cellar labelled it). For a new Database (no status written yet) it creates first
   * and reads only on the conflict, which spares each new Database a read per such child (four
   * Secrets: docs/performance.md, No read before a write). Later a child missing from the informer
   * is most likely the user's, so it reads first: a create refused on every reconcile would be a
   * write attempt each time.
   */
  protected R createOrTake(
      R desired, Database db, Context<Database> context, UnaryOperator<R> existing) {
    if (!createFirst(db)) {
      return read(desired, db, context)
          .map(existing)
          .orElseGet(() -> createNew(desired, db, context));
    }
    try {
      return createNew(desired, db, context);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // Deleted again since the conflict: the create's error stands, the next reconcile retries.
      return existing.apply(read(desired, db, context).orElseThrow(() -> e));
    }
  }

  /** Whether {@link #createOrTake} creates before it reads: see there. */
  protected boolean createFirst(Database db) {
    return db.getStatus() == null;
  }

  private Optional<R> read(R desired, Database db, Context<Database> context) {
    return read(db.getMetadata().getNamespace(), desired.getMetadata().getName(), context);
  }

  private Optional<R> read(String namespace, String name, Context<Database> context) {
    return Optional.ofNullable(
        context.getClient().resources(resourceType()).inNamespace(namespace).withName(name).get());
  }

  @Override
  public R update(R actual, R desired, Database db, Context<Database> context) {
    WriteBudget.spend(db, resourceType().getSimpleName() + " " + childName(Topology.of(db)));
    return written(super.update(actual, desired, db, context), db, context);
  }

  /** Name, namespace and labels of the child. */
  protected ObjectMeta metadata(Database db, Keys.Component component) {
    return new ObjectMetaBuilder()
        .withName(childName(Topology.of(db)))
        .withNamespace(db.getMetadata().getNamespace())
        .withLabels(Keys.labels(db, component))
        .build();
  }

  /** Metadata of a child that holds data (credentials, dumps): see {@link DataRetention}. */
  protected ObjectMeta dataMetadata(Database db, Keys.Component component) {
    ObjectMeta meta = metadata(db, component);
    if (!DataRetention.ownerReferences(db).isEmpty()) {
      meta.setOwnerReferences(DataRetention.ownerReferences(db));
    }
    return meta;
  }
}
