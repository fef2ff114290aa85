package dev.cellar.operator.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The operator's logging, configured in code (found by logback through the ServiceLoader). A
 * logback.xml costs an XML parser and logback's configuration model: some 580 classes, 2.5 MB of
 * metaspace and a tenth of a second at every start (docs/performance.md, Fewer classes loaded). A
 * file named by {@code -Dlogback.configurationFile} still wins: this configurator then steps aside.
 */
public final class LogConfiguration extends ContextAwareBase implements Configurator {
  /** Time, level, thread, logger, the Database as namespace/name (or -), the message. */
  static final String PATTERN =
      "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{24}"
          + " %replace(%X{resource.namespace}/%X{resource.name}){'^/$', '-'} - %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("STDOUT");
    console.setEncoder(encoder);
    console.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(console);
    context.getLogger("io.fabric8.kubernetes.client.dsl.internal").setLevel(Level.WARN);
    // A failed reconcile is logged in one line by DatabaseReconciler and retried with backoff;
    // JOSDK's own WARN carries the whole stack trace each time, a storm during an outage.
    context
        .getLogger("io.javaoperatorsdk.operator.processing.event.EventProcessor")
        .setLevel(Level.ERROR);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
