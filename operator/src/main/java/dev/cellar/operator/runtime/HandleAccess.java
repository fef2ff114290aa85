package dev.cellar.operator.runtime;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.PropertyName;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.deser.ValueInstantiator;
import com.fasterxml.jackson.databind.deser.impl.MethodProperty;
import com.fasterxml.jackson.databind.deser.impl.NullsConstantProvider;
import com.fasterxml.jackson.databind.deser.std.StdValueInstantiator;
import com.fasterxml.jackson.databind.introspect.AnnotatedConstructor;
import com.fasterxml.jackson.databind.introspect.AnnotatedMethod;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializerBuilder;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.impl.PropertySerializerMap;
import io.fabric8.kubernetes.model.jackson.BeanPropertyWriterDelegate;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Jackson calls the models' setters, getters and constructors through method handles instead of
 * reflection.
 *
 * <p>Jackson reaches every property through {@code Method.invoke}. The operator's JVM keeps those
 * calls native ({@code -Dsun.reflect.inflationThreshold}: otherwise the JDK generates a class in a
 * class loader of its own for each method, about a thousand, docs/benchmarks.md), and a native call
 * costs about 250 ns under C1, against about 6 ns for a method handle held in a field (whose code
 * the JDK shares between all handles of one shape: no class per method). Those calls were 7 % of
 * the operator's CPU while converging: every object read, every desired state written, every copy
 * JOSDK makes of a Database. And fabric8's serialization asks each object for its additional
 * properties once per property it writes, through reflection too. (The JDK would also specialise
 * each handle called often into a class of its own, some 500 here, for speed only C2 would see: the
 * Deployment's {@code -Djava.lang.invoke.MethodHandle.CUSTOMIZE_THRESHOLD=-1} keeps them shared,
 * fewer classes in all than native reflection loads.)
 *
 * <p>Only public methods and constructors of public classes are reached this way (the models'); any
 * other property is left as Jackson made it. Two modules, as they must run on each side of
 * fabric8's own ({@code UnmatchedFieldTypeModule}, which wraps every property and writer): the
 * readers' runs before it (registered after it: Jackson runs the modifier registered last first),
 * so that fabric8's wrapper calls the handle; the writers' runs after it, and writes as fabric8's
 * wrapper would (a property that the object's additional properties also name is written from there
 * alone) without its reflection. Off with {@code -Dcellar.handleAccess=false}.
 */
final class HandleAccess {
  private HandleAccess() {}

  static boolean enabled() {
    return !"false".equals(System.getProperty("cellar.handleAccess"));
  }

  private static final MethodType SETTER =
      MethodType.methodType(Object.class, Object.class, Object.class);
  private static final MethodType GETTER = MethodType.methodType(Object.class, Object.class);
  private static final MethodType CONSTRUCTOR = MethodType.methodType(Object.class);

  /** The module that sets properties and makes objects through handles: after fabric8's. */
  static SimpleModule readers() {
    SimpleModule module = new SimpleModule("cellar-handle-readers");
    module.setDeserializerModifier(
        new BeanDeserializerModifier() {
          @Override
          public BeanDeserializerBuilder updateBuilder(
              DeserializationConfig config, BeanDescription desc, BeanDeserializerBuilder builder) {
            List<SettableBeanProperty> replaced = new ArrayList<>();
            builder
                .getProperties()
                .forEachRemaining(
                    property -> {
                      if (property.getClass() == MethodProperty.class
                          && property.getMember() instanceof AnnotatedMethod setter) {
                        handle(setter.getAnnotated(), SETTER)
                            .ifPresent(h -> replaced.add(new HandleProperty(property, h)));
                      }
                    });
            replaced.forEach(property -> builder.addOrReplaceProperty(property, true));
            ValueInstantiator instantiator = builder.getValueInstantiator();
            if (instantiator != null
                && instantiator.getClass() == StdValueInstantiator.class
                && instantiator.getDefaultCreator() instanceof AnnotatedConstructor made) {
              handle(made.getAnnotated(), CONSTRUCTOR)
                  .ifPresent(
                      h ->
                          builder.setValueInstantiator(
                              new HandleInstantiator((StdValueInstantiator) instantiator, h)));
            }
            return builder;
          }
        });
    return module;
  }

  /** The module that reads properties through handles: before fabric8's. */
  static SimpleModule writers() {
    SimpleModule module = new SimpleModule("cellar-handle-writers");
    module.setSerializerModifier(
        new BeanSerializerModifier() {
          @Override
          public BeanSerializerBuilder updateBuilder(
              SerializationConfig config, BeanDescription desc, BeanSerializerBuilder builder) {
            Optional<MethodHandle> additional =
                Optional.ofNullable(desc.findAnyGetter())
                    .filter(AnnotatedMethod.class::isInstance)
                    .flatMap(m -> handle(((AnnotatedMethod) m).getAnnotated(), GETTER));
            List<BeanPropertyWriter> writers = new ArrayList<>(builder.getProperties());
            boolean changed = false;
            for (int i = 0; i < writers.size(); i++) {
              BeanPropertyWriter writer = writers.get(i);
              boolean fabric8s = writer.getClass() == BeanPropertyWriterDelegate.class;
              if ((fabric8s || writer.getClass() == BeanPropertyWriter.class)
                  && writer.getViews() == null
                  && writer.getMember() instanceof AnnotatedMethod getter
                  && (!fabric8s || desc.findAnyGetter() == null || additional.isPresent())) {
                Optional<MethodHandle> h = handle(getter.getAnnotated(), GETTER);
                if (h.isPresent()) {
                  writers.set(
                      i,
                      new HandleWriter(writer, h.get(), fabric8s ? additional.orElse(null) : null));
                  changed = true;
                }
              }
            }
            if (changed) {
              builder.setProperties(writers);
            }
            return builder;
          }
        });
    return module;
  }

  /**
   * A handle of {@code type} to {@code member} if it and its class are public (a setter takes one
   * argument; a getter and a constructor none); empty where reflection stays.
   */
  static Optional<MethodHandle> handle(Executable member, MethodType type) {
    if (!Modifier.isPublic(member.getModifiers())
        || !Modifier.isPublic(member.getDeclaringClass().getModifiers())
        || Modifier.isStatic(member.getModifiers())
        || member.getParameterCount() != type.parameterCount() - (type == CONSTRUCTOR ? 0 : 1)) {
      return Optional.empty();
    }
    try {
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      MethodHandle h =
          member instanceof Method m
              ? lookup.unreflect(m)
              : lookup.unreflectConstructor((Constructor<?>) member);
      return Optional.of(h.asType(type));
    } catch (IllegalAccessException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** A setter's property that sets as Jackson's {@code MethodProperty} does, through a handle. */
  static final class HandleProperty extends SettableBeanProperty.Delegating {
    private final MethodHandle setter;
    private final boolean skipNulls;

    HandleProperty(SettableBeanProperty delegate, MethodHandle setter) {
      super(delegate);
      this.setter = setter;
      this.skipNulls = NullsConstantProvider.isSkipper(_nullProvider);
    }

    @Override
    protected SettableBeanProperty withDelegate(SettableBeanProperty delegate) {
      return new HandleProperty(delegate, setter);
    }

    @Override
    public void deserializeAndSet(JsonParser p, DeserializationContext ctxt, Object instance)
        throws IOException {
      deserializeSetAndReturn(p, ctxt, instance);
    }

    @Override
    public Object deserializeSetAndReturn(
        JsonParser p, DeserializationContext ctxt, Object instance) throws IOException {
      Object value;
      if (p.hasToken(JsonToken.VALUE_NULL)) {
        if (skipNulls) {
          return instance;
        }
        value = _nullProvider.getNullValue(ctxt);
      } else if (_valueTypeDeserializer == null) {
        value = _valueDeserializer.deserialize(p, ctxt);
        if (value == null) {
          if (skipNulls) {
            return instance;
          }
          value = _nullProvider.getNullValue(ctxt);
        }
      } else {
        value = _valueDeserializer.deserializeWithType(p, ctxt, _valueTypeDeserializer);
      }
      return invoke(p, instance, value);
    }

    @Override
    public void set(Object instance, Object value) throws IOException {
      setAndReturn(instance, value);
    }

    @Override
    public Object setAndReturn(Object instance, Object value) throws IOException {
      if (value == null && skipNulls) {
        return instance;
      }
      return invoke(null, instance, value);
    }

    private Object invoke(JsonParser p, Object instance, Object value) throws IOException {
      try {
        Object result = (Object) setter.invokeExact(instance, value);
        return result == null ? instance : result;
      } catch (ClassCastException e) {
        // What Method.invoke throws for an argument of the wrong type, which Jackson explains.
        _throwAsIOE(p, new IllegalArgumentException(e.getMessage(), e), value);
        return null;
      } catch (Exception e) {
        _throwAsIOE(p, e, value);
        return null;
      } catch (Throwable e) {
        throw (Error) e; // invokeExact throws what the setter throws: no other Throwable
      }
    }
  }

  /** Jackson's instantiator, its default constructor called through a handle. */
  static final class HandleInstantiator extends StdValueInstantiator {
    private final MethodHandle constructor;

    HandleInstantiator(StdValueInstantiator instantiator, MethodHandle constructor) {
      super(instantiator);
      this.constructor = constructor;
    }

    @Override
    public Object createUsingDefault(DeserializationContext ctxt) throws IOException {
      try {
        return (Object) constructor.invokeExact();
      } catch (Exception e) {
        return ctxt.handleInstantiationProblem(getValueClass(), null, rewrapCtorProblem(ctxt, e));
      } catch (Throwable e) {
        throw (Error) e;
      }
    }
  }

  /**
   * A getter's writer that writes as Jackson's {@code BeanPropertyWriter} does, through a handle;
   * with {@code additional} (the object's additional properties), as fabric8's wrapper: not at all
   * when those name the property too.
   */
  static final class HandleWriter extends BeanPropertyWriter {
    private final MethodHandle getter;
    private final MethodHandle additional;

    HandleWriter(BeanPropertyWriter writer, MethodHandle getter, MethodHandle additional) {
      super(writer);
      this.getter = getter;
      this.additional = additional;
    }

    private HandleWriter(HandleWriter writer, PropertyName name) {
      super(writer, name);
      this.getter = writer.getter;
      this.additional = writer.additional;
    }

    @Override
    protected BeanPropertyWriter _new(PropertyName name) {
      return new HandleWriter(this, name);
    }

    @Override
    public Object get(Object bean) throws Exception {
      try {
        return (Object) getter.invokeExact(bean);
      } catch (Exception | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new IllegalStateException(e); // invokeExact throws what the getter throws
      }
    }

    @Override
    public void serializeAsField(Object bean, JsonGenerator gen, SerializerProvider prov)
        throws Exception {
      if (additional != null && namedInAdditional(bean)) {
        return;
      }
      Object value = get(bean);
      if (value == null) {
        if (_suppressableValue != null && prov.includeFilterSuppressNulls(_suppressableValue)) {
          return;
        }
        if (_nullSerializer != null) {
          gen.writeFieldName(_name);
          _nullSerializer.serialize(null, gen, prov);
        }
        return;
      }
      JsonSerializer<Object> ser = _serializer;
      if (ser == null) {
        Class<?> type = value.getClass();
        PropertySerializerMap serializers = _dynamicSerializers;
        ser = serializers.serializerFor(type);
        if (ser == null) {
          ser = _findAndAddDynamic(serializers, type, prov);
        }
      }
      if (_suppressableValue != null
          && (MARKER_FOR_EMPTY == _suppressableValue
              ? ser.isEmpty(prov, value)
              : _suppressableValue.equals(value))) {
        return;
      }
      if (value == bean && _handleSelfReference(bean, gen, prov, ser)) {
        return;
      }
      gen.writeFieldName(_name);
      if (_typeSerializer == null) {
        ser.serialize(value, gen, prov);
      } else {
        ser.serializeWithType(value, gen, prov, _typeSerializer);
      }
    }

    private boolean namedInAdditional(Object bean) throws Exception {
      Object properties;
      try {
        properties = (Object) additional.invokeExact(bean);
      } catch (Exception | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
      return properties instanceof Map<?, ?> map && map.get(getName()) != null;
    }
  }
}
