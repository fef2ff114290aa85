package dev.cellar.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LogConfigurationTest {
  @Test
  void theOperatorLogsThroughIt() {
    // found through the ServiceLoader, as in the jar and the image
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDOUT")).isNotNull();
  }

  @Test
  void linesNameTheDatabaseAndQuietLoggersStayQuiet() {
    LoggerContext context = new LoggerContext();
    LogConfiguration configuration = new LogConfiguration();
    configuration.setContext(context);
    assertThat(configuration.configure(context))
        .isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.INFO);
    assertThat(
            context
                .getLogger("io.fabric8.kubernetes.client.dsl.internal.WatchConnectionManager")
                .getEffectiveLevel())
        .isEqualTo(Level.WARN);
    assertThat(
            context
                .getLogger("io.javaoperatorsdk.operator.processing.event.EventProcessor")
                .isWarnEnabled())
        .isFalse();

    @SuppressWarnings("unchecked")
    var console = (ConsoleAppender<ILoggingEvent>) root.getAppender("STDOUT");
    Logger logger = context.getLogger("dev.cellar.operator.DatabaseReconciler");
    LoggingEvent named = new LoggingEvent(null, logger, Level.INFO, "reconciled", null, null);
    named.setMDCPropertyMap(Map.of("resource.namespace", "shop", "resource.name", "orders"));
    assertThat(line(console, named))
        .matches(
            "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[.*] d\\.c\\.o\\.DatabaseReconciler shop/orders - reconciled\\R");
    LoggingEvent unnamed = new LoggingEvent(null, logger, Level.WARN, "no Database", null, null);
    unnamed.setMDCPropertyMap(Map.of());
    assertThat(line(console, unnamed))
        .endsWith("DatabaseReconciler - - no Database" + System.lineSeparator());
  }

  @Test
  void aFileNamedOnTheCommandLineWins() {
    System.setProperty("logback.configurationFile", "/etc/cellar/logback.xml");
    try {
      LoggerContext context = new LoggerContext();
      LogConfiguration configuration = new LogConfiguration();
      configuration.setContext(context);
      assertThat(configuration.configure(context)).isEqualTo(ExecutionStatus.INVOKE_NEXT_IF_ANY);
      assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders()).isExhausted();
    } finally {
      System.clearProperty("logback.configurationFile");
    }
  }

  private static String line(ConsoleAppender<ILoggingEvent> console, ILoggingEvent event) {
    return new String(console.getEncoder().encode(event), StandardCharsets.UTF_8);
  }
}
