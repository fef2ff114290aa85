/**
 * The operator's client and JVM tuning, which bounds its memory and CPU per Database
 * (docs/performance.md): what it hands the operator's composition root, and nothing of Cellar's
 * domain, whose kinds the operator names.
 *
 * <ul>
 *   <li>A configured client ({@link dev.cellar.kubelean.ApiServerClient}): strings and empty maps
 *       shared, reads for a cache that skip what the caches drop, watch events read in one pass,
 *       compressed lists, the cluster's CA alone, ChaCha20 first.
 *   <li>The informers' item stores ({@link dev.cellar.kubelean.CachePruning}), which keep what the
 *       operator reads, the page size of their lists, and an event source for a primary's children
 *       that finds them by name and lets go of a write's response ({@link
 *       dev.cellar.kubelean.ChildEventSource}).
 *   <li>The hooks the operator's matching needs: whether a cached object is kept in part, a
 *       ConfigMap's files by their hash, the children that matched before ({@link
 *       dev.cellar.kubelean.KnownMatches}).
 *   <li>Looser heap bounds while the caches fill ({@link dev.cellar.kubelean.StartupHeap}).
 * </ul>
 *
 * <p>Each can be switched off with a system property ({@code -Dcellar.cachePruning=false} and the
 * like, named where each is), to measure what it saves or as an escape hatch.
 */
package dev.cellar.kubelean;
