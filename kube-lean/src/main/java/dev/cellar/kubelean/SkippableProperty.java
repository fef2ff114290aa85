package dev.cellar.kubelean;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import java.io.IOException;
import java.util.function.BooleanSupplier;

/**
 * A property whose value the parser skips, without building it, while {@code skipping} says so (the
 * reading thread's mark: {@link LeanMetadata}, {@link CacheReads}), and reads as before otherwise.
 */
final class SkippableProperty extends SettableBeanProperty.Delegating {
  private final BooleanSupplier skipping;

  SkippableProperty(SettableBeanProperty delegate, BooleanSupplier skipping) {
    super(delegate);
    this.skipping = skipping;
  }

  @Override
  protected SettableBeanProperty withDelegate(SettableBeanProperty delegate) {
    return new SkippableProperty(delegate, skipping);
  }

  @Override
  public void deserializeAndSet(JsonParser p, DeserializationContext ctxt, Object instance)
      throws IOException {
    if (skipping.getAsBoolean()) {
      p.skipChildren();
    } else {
      super.deserializeAndSet(p, ctxt, instance);
    }
  }

  @Override
  public Object deserializeSetAndReturn(JsonParser p, DeserializationContext ctxt, Object instance)
      throws IOException {
    if (skipping.getAsBoolean()) {
      p.skipChildren();
      return instance;
    }
    return super.deserializeSetAndReturn(p, ctxt, instance);
  }
}
