package dev.cellar.kubelean;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How the operator's client reads and writes objects: fabric8's, knowing only the kinds the
 * operator watches, and reading a watch event in one pass.
 *
 * <p>Left to itself, fabric8 finds every kind it models through the ServiceLoader and instantiates
 * each: some 320 classes and the hundreds they pull in, their metaspace and a fifth of a second at
 * start, for a dozen kinds watched. And a kind it does not find there (a custom resource) was read
 * three times: to a tree, a generic resource, then converted. So the operator names the kinds it
 * watches, and a watch's ERROR event (410 Gone: list again) needs {@code Status} among them. A kind
 * missing there still works, the slow way.
 *
 * <p>fabric8 reads a watch event's object into a tree first, to learn its kind, then the tree into
 * the kind's class: every object the informers receive is read twice (13.6 % of the operator's CPU
 * while converging: docs/performance.md, Watch events read in one pass). Here the kind is read from
 * the object's first fields (the API server writes {@code kind} and {@code apiVersion} there), and
 * the object straight from the event's text into its class. Anything else (a kind not named here,
 * an event of another shape, text that does not parse) is left to fabric8, which reads it as
 * before.
 */
final class ApiServerSerialization extends KubernetesSerialization {
  private final ObjectMapper mapper;
  private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();

  ApiServerSerialization(ObjectMapper mapper, List<Class<? extends KubernetesResource>> kinds) {
    super(mapper, false);
    this.mapper = mapper;
    kinds.forEach(this::registerKubernetesResource);
  }

  @Override
  public <T> T unmarshal(String str, Class<T> type) {
    if (type == WatchEvent.class) {
      // An empty line stands for the event WatchLines has just read from the stream's bytes.
      WatchEvent event = str.isEmpty() ? WatchLines.readAhead() : watchEvent(str);
      if (event != null) {
        return type.cast(event);
      }
    }
    return super.unmarshal(str, type);
  }

  /** A page of an informer's list of a kind {@link CacheReads} knows is read for its cache. */
  @Override
  public <T> T unmarshal(InputStream is, TypeReference<T> type) {
    Optional<Class<?>> items = CacheReads.itemsOf(type.getType());
    if (items.isEmpty()) {
      return super.unmarshal(is, type);
    }
    try {
      return CacheReads.reading(items.get(), () -> super.unmarshal(is, type));
    } catch (IOException e) {
      throw KubernetesClientException.launderThrowable(e); // fabric8's read throws none
    }
  }

  /** The event read in one pass; null where fabric8 should read it. */
  WatchEvent watchEvent(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    return watchEvent(bytes, bytes.length);
  }

  /** The event in the first {@code length} bytes of {@code bytes}; null where fabric8 should. */
  WatchEvent watchEvent(byte[] bytes, int length) {
    try (JsonParser parser = mapper.getFactory().createParser(bytes, 0, length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      WatchEvent event = new WatchEvent();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        if (field.equals("type") && value == JsonToken.VALUE_STRING) {
          event.setType(parser.getText());
        } else if (field.equals("object") && value == JsonToken.START_OBJECT) {
          Class<?> kind = kindAt(bytes, length, parser.currentTokenLocation().getByteOffset());
          if (kind == null) {
            return null;
          }
          event.setObject(CacheReads.reading(kind, () -> reader(kind).readValue(parser)));
        } else {
          return null;
        }
      }
      return event.getType() == null || event.getObject() == null ? null : event;
    } catch (IOException | RuntimeException e) {
      return null; // fabric8 reads it again, and says what is wrong with it
    }
  }

  /** The registered class of the object that begins at {@code offset}, by its first fields. */
  private Class<?> kindAt(byte[] bytes, int length, long offset) throws IOException {
    if (offset < 0 || offset >= length) {
      return null;
    }
    int start = (int) offset;
    try (JsonParser parser = mapper.getFactory().createParser(bytes, start, length - start)) {
      parser.nextToken();
      String apiVersion = null;
      String kind = null;
      while ((apiVersion == null || kind == null) && parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        parser.nextToken();
        if (field.equals("apiVersion")) {
          apiVersion = parser.getValueAsString();
        } else if (field.equals("kind")) {
          kind = parser.getValueAsString();
        } else {
          parser.skipChildren();
        }
      }
      return apiVersion == null || kind == null
          ? null
          : getRegisteredKubernetesResource(apiVersion, kind);
    }
  }

  private ObjectReader reader(Class<?> kind) {
    return readers.computeIfAbsent(kind, mapper::readerFor);
  }
}
