/**
 * The composition root's binding of the client and the informers to the kube-lean module's tuning:
 * the client told Cellar's kinds ({@link dev.cellar.operator.wiring.ApiServer}), and {@link
 * dev.cellar.operator.informers.Informers}, what the domain asks of the informers, answered by
 * kube-lean ({@link dev.cellar.operator.wiring.LeanInformers}, found through {@code
 * META-INF/services}). Only {@code CellarOperator} uses this package (LayersTest).
 */
package dev.cellar.operator.wiring;
