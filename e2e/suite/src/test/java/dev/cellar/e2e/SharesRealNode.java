package dev.cellar.e2e;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A class whose scenarios run pods on the local cluster's real node ({@link
 * dev.cellar.testkit.SharedRealNode}). The suite runs these classes first ({@link RealNodeFirst}),
 * one after another on one start of the node, and stops the node before the first class that
 * expects kwok's nodes alone ({@link RealNodeRelease}): the kwok scenarios' pods must not land on a
 * node that really runs them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@interface SharesRealNode {}
