package dev.cellar.operator.runtime;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.LoggerFactory;

/** Switches the console to one JSON object per line (with the MDC: the Database's name). */
public final class LogFormats {
  private LogFormats() {}

  public static void apply(OperatorSettings.LogFormat format) {
    if (format != OperatorSettings.LogFormat.JSON) {
      return; // LogConfiguration's text pattern
    }
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(context);
    encoder.setWithArguments(false);
    encoder.setWithMessage(false);
    encoder.setWithFormattedMessage(true);
    encoder.setWithContext(false);
    encoder.setWithSequenceNumber(false);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("JSON");
    console.setEncoder(encoder);
    console.start();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    root.addAppender(console);
  }
}
