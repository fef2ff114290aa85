/**
 * The Cellar operator, in layers that depend one way: a class refers to its own layer and those
 * below it, never above, and no packages refer to each other around a loop. Bottom to top:
 *
 * <ol>
 *   <li>The vocabulary, in the api module (dev.cellar.api.names), shared with the plugin: label,
 *       annotation and Secret keys, condition types and reasons, the names of a Database's
 *       children.
 *   <li>{@code informers}: the informers and their caches, as the domain asks them (which informer,
 *       a cached object kept in part, a ConfigMap's files by their hash, the children that matched
 *       before). The client and JVM tuning behind them is the kube-lean module's, which no domain
 *       package uses.
 *   <li>{@code certmanager}, {@code prometheus}: other projects' resources as Cellar reads them.
 *   <li>{@code facts}: what pods say (ready, revision, rolled out, why one cannot run), whether a
 *       Database was ever available, the failure a step reports. Status, rollout, failover and the
 *       roles read pods through it, none through another.
 *   <li>{@code guard}: the cap on writes per Database.
 *   <li>{@code runtime}, {@code events}: the process (client, settings, patches, metrics, error
 *       lines) and the Events it writes.
 *   <li>{@code engine}: what each engine needs.
 *   <li>{@code topology}: a Database's names, hosts and what runs; its children read by name.
 *   <li>The concerns of a running Database, peers: {@code instance}, {@code podspec}, {@code
 *       primary}, {@code failover}, {@code replication}, {@code credentials}, {@code tls}, {@code
 *       storage}, {@code rollout}, {@code backup}, {@code deletion}.
 *   <li>{@code dependent}: one class per child, its desired state.
 *   <li>{@code status}: observes the children and derives the status. It may read every concern it
 *       reports on; nothing below asks it for helpers, so what it derives is never an input of what
 *       it observes.
 *   <li>{@code wiring}: the composition root's binding of the client and the informers to
 *       kube-lean's tuning; only the operator's main uses it.
 *   <li>This package: the reconciler, which runs the phases in order, and the operator's main.
 * </ol>
 *
 * <p>LayersTest holds the list and fails on a reference against it or a loop between packages, and
 * on a use of kube-lean (or of {@code wiring}) outside {@code CellarOperator} and {@code wiring}.
 */
package dev.cellar.operator;
