package dev.cellar.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyName;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.ser.AnyGetterWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializer;
import com.fasterxml.jackson.databind.ser.PropertyWriter;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HandleAccessTest {
  /** The operator's client's reading and writing. */
  static final ObjectMapper MAPPER = ApiServerClient.mapper();

  static final ApiServerSerialization CLIENT = new ApiServerSerialization(MAPPER);

  /** The same with every property through reflection, as Jackson would. */
  static final ApiServerSerialization REFLECTION = reflection();

  static ApiServerSerialization reflection() {
    System.setProperty("cellar.handleAccess", "false");
    try {
      return new ApiServerSerialization(ApiServerClient.mapper());
    } finally {
      System.clearProperty("cellar.handleAccess");
    }
  }

  static String resource(String name) {
    try (InputStream in = HandleAccessTest.class.getResourceAsStream("/cache-reads/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<Arguments> objects() {
    return Stream.of(
        Arguments.of(Pod.class, resource("pod.json")),
        Arguments.of(StatefulSet.class, resource("statefulset.json")),
        Arguments.of(CronJob.class, resource("cronjob.json")));
  }

  /** A GET's object (read whole) is the same read either way, and written back the same. */
  @ParameterizedTest
  @MethodSource("objects")
  <T extends HasMetadata> void readsAndWritesAsReflectionDoes(Class<T> kind, String json) {
    T read = CLIENT.unmarshal(json, kind);
    T expected = REFLECTION.unmarshal(json, kind);
    assertThat(read).isEqualTo(expected);
    assertThat(CLIENT.asJson(read)).isEqualTo(REFLECTION.asJson(expected));
  }

  @Test
  void aDatabaseReadsAndWritesAsReflectionDoes() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setReplicas(3);
    Database db = new Database("shop", "orders", spec);
    String json = REFLECTION.asJson(db);
    assertThat(CLIENT.asJson(db)).isEqualTo(json);
    assertThat(CLIENT.unmarshal(json, Database.class)).isEqualTo(db);
  }

  /**
   * fabric8 writes a property that its object's additional properties also name from there alone (a
   * template's field set to an expression); so do the handles.
   */
  @Test
  void aPropertyAlsoAmongTheAdditionalOnesIsWrittenOnce() {
    ObjectMeta meta = new ObjectMeta();
    meta.setName("orders");
    meta.setNamespace("shop");
    meta.setAdditionalProperty("name", "${NAME}");
    String json = CLIENT.asJson(meta);
    assertThat(json)
        .isEqualTo(REFLECTION.asJson(meta))
        .contains("${NAME}")
        .doesNotContain("orders");
  }

  /** A value of the wrong type is refused as reflection refuses it, naming the property. */
  @Test
  void aValueOfTheWrongTypeNamesTheProperty() throws Exception {
    SettableBeanProperty name = property(ObjectMeta.class, "name");
    assertThatThrownBy(() -> name.set(new ObjectMeta(), 42))
        .isInstanceOf(JsonMappingException.class)
        .hasMessageContaining("'name'");
  }

  /**
   * The handles are what the client's reading and writing call, under fabric8's wrappers and
   * Cellar's own (registered on the wrong side of fabric8's module, they would not be).
   */
  @Test
  void theClientsPropertiesGoThroughHandles() throws Exception {
    for (String field : List.of("name", "labels", "managedFields", "ownerReferences")) {
      assertThat(layers(property(ObjectMeta.class, field)))
          .as(field)
          .hasAtLeastOneElementOfType(HandleAccess.HandleProperty.class);
    }
    assertThat(layers(property(Database.class, "spec")))
        .hasAtLeastOneElementOfType(HandleAccess.HandleProperty.class);
    assertThat(deserializer(ObjectMeta.class).getValueInstantiator())
        .isInstanceOf(HandleAccess.HandleInstantiator.class);
    for (Class<?> type : List.of(ObjectMeta.class, StatefulSet.class, Database.class)) {
      assertThat(writers(type)).as(type.getSimpleName()).isNotEmpty();
      assertThat(writers(type))
          .as(type.getSimpleName())
          .allMatch(HandleAccess.HandleWriter.class::isInstance);
    }
  }

  static BeanDeserializerBase deserializer(Class<?> type) throws JsonMappingException {
    DeserializationContext context =
        ((DefaultDeserializationContext) MAPPER.getDeserializationContext())
            .createInstance(MAPPER.getDeserializationConfig(), null, null);
    JsonDeserializer<?> deserializer =
        context.findRootValueDeserializer(MAPPER.constructType(type));
    while (!(deserializer instanceof BeanDeserializerBase) && deserializer.getDelegatee() != null) {
      deserializer = deserializer.getDelegatee(); // Cellar's marking of some kinds
    }
    return (BeanDeserializerBase) deserializer;
  }

  static SettableBeanProperty property(Class<?> type, String name) throws JsonMappingException {
    return deserializer(type).findProperty(PropertyName.construct(name).getSimpleName());
  }

  /** {@code property} and each property it delegates to, outermost first. */
  static List<SettableBeanProperty> layers(SettableBeanProperty property) {
    List<SettableBeanProperty> layers = new ArrayList<>();
    for (SettableBeanProperty p = property; p != null; ) {
      layers.add(p);
      p = p instanceof SettableBeanProperty.Delegating d ? d.getDelegate() : null;
    }
    return layers;
  }

  /**
   * The writers of {@code type}'s properties but the additional ones (written through one
   * reflective call a whole object).
   */
  static List<PropertyWriter> writers(Class<?> type) throws JsonMappingException {
    JsonSerializer<Object> serializer =
        MAPPER.getSerializerProviderInstance().findValueSerializer(type);
    List<PropertyWriter> writers = new ArrayList<>();
    for (Iterator<PropertyWriter> it = ((BeanSerializer) serializer).properties(); it.hasNext(); ) {
      PropertyWriter writer = it.next();
      if (!(writer instanceof AnyGetterWriter)) {
        writers.add(writer);
      }
    }
    return writers;
  }
}
