package dev.cellar.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * What {@link DatabaseFuzzIT} generates: Databases the CRD admits (every field, edge values
 * included: versions supported and not, in odd forms; sizes at the bounds; names at the length
 * limit; schedules in every cron shape; requests and limits in every quantity form; storage classes
 * that exist and one that does not), and what the suite knows about each without asking the
 * operator: whether its version is supported and whether the local cluster can run it at all.
 */
final class FuzzCases {
  private FuzzCases() {}

  /** The longest Database name the CRD admits. */
  static final int MAX_NAME = 45;

  /** The fuzzer's nodes (see DatabaseFuzzIT): every pod that asks for at most this fits. */
  static final BigDecimal NODE_CPU = new BigDecimal(1000);

  static final BigDecimal NODE_MEMORY = new Quantity("4Ti").getNumericalAmount();

  /** Storage classes of the local cluster; anything else does not exist. */
  static final List<String> EXISTING_CLASSES = List.of("standard", "fixed");

  /** One generated Database. */
  record Case(int index, String name, Map<String, Object> spec) {
    GenericKubernetesResource resource(String namespace) {
      GenericKubernetesResource db = new GenericKubernetesResource();
      db.setApiVersion("cellar.dev/v1");
      db.setKind("Database");
      db.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
      db.setAdditionalProperty("spec", spec);
      return db;
    }

    String yaml(String namespace) {
      return Serialization.asYaml(resource(namespace));
    }

    String engine() {
      return (String) spec.get("engine");
    }

    String version() {
      return (String) spec.get("version");
    }

    /** Whether the engine supports the version (DESIGN.md's table, judged independently). */
    boolean versionSupported() {
      return FuzzCases.supported(engine(), version());
    }

    /**
     * Whether the local cluster can run it at all: a supported version, a storage class that exists
     * (or the default), and pods that fit on a node.
     */
    boolean runnable() {
      String storageClass = (String) spec.get("storageClassName");
      return versionSupported()
          && (storageClass == null || EXISTING_CLASSES.contains(storageClass))
          && request("cpu").compareTo(NODE_CPU) <= 0
          && request("memory").compareTo(NODE_MEMORY) <= 0;
    }

    /** What the scheduler reserves for each pod: the request, else the limit, else Cellar's. */
    @SuppressWarnings("unchecked")
    BigDecimal request(String resource) {
      Map<String, Object> resources = (Map<String, Object>) spec.get("resources");
      if (resources == null) {
        return new Quantity(resource.equals("cpu") ? "100m" : "256Mi").getNumericalAmount();
      }
      for (String kind : List.of("requests", "limits")) {
        Map<String, Object> values = (Map<String, Object>) resources.get(kind);
        if (values != null && values.get(resource) != null) {
          return new Quantity(String.valueOf(values.get(resource))).getNumericalAmount();
        }
      }
      return BigDecimal.ZERO;
    }

    /** What the suite expects, in words, for a failure report. */
    String expectation() {
      if (!versionSupported()) {
        return "not Ready: " + engine() + " " + version() + " is not supported";
      }
      return runnable()
          ? "Ready (supported version, existing storage class, pods that fit)"
          : "Ready, or Degraded/Failed naming why (storage class or pod size)";
    }
  }

  /**
   * Supported series, as DESIGN.md lists them: a version lies in a series when its leading parts
   * equal the series' parts ("8.4.2" in "8.4"; "8" in no MySQL series). Parts compare as numbers,
   * so "016" is 16.
   */
  static final Map<String, List<String>> SERIES =
      Map.of(
          "postgresql", List.of("13", "14", "15", "16", "17", "18"),
          "mysql", List.of("8.0", "8.4", "9"),
          "mariadb", List.of("10.6", "10.11", "11.4", "11.8"));

  static boolean supported(String engine, String version) {
    List<BigInteger> parts = parts(version);
    for (String series : SERIES.get(engine)) {
      List<BigInteger> wanted = parts(series);
      if (wanted.size() <= parts.size() && parts.subList(0, wanted.size()).equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  private static List<BigInteger> parts(String version) {
    List<BigInteger> parts = new ArrayList<>();
    for (String part : version.split("\\.")) {
      parts.add(new BigInteger(part));
    }
    return parts;
  }

  // ---- generators ----

  static Arbitrary<String> engines() {
    return Arbitraries.of("postgresql", "mysql", "mariadb");
  }

  /** Supported versions in every form, and unsupported or odd ones. */
  static Arbitrary<String> versions(String engine) {
    Arbitrary<String> supported =
        switch (engine) {
          case "postgresql" ->
              Arbitraries.of("13", "14", "15", "16", "17", "18", "16.4", "16.4.1", "13.0", "18.1");
          case "mysql" -> Arbitraries.of("8.0", "8.4", "9", "8.0.36", "8.4.2", "9.1", "9.1.0");
          default -> Arbitraries.of("10.6", "10.11", "11.4", "11.8", "10.11.9", "11.4.3");
        };
    Arbitrary<String> odd =
        switch (engine) {
          case "postgresql" ->
              Arbitraries.of("12", "19", "8.4", "10.11", "016", "0", "999999999", "16.04");
          case "mysql" -> Arbitraries.of("8", "5.7", "8.1", "10.11", "0.0.1", "08.4", "16");
          default -> Arbitraries.of("10", "10.5", "11", "12.0", "16", "10.011", "11.8.999999999");
        };
    return Arbitraries.frequencyOf(Tuple.of(3, supported), Tuple.of(1, odd));
  }

  /** Sizes the CRD admits: (0, 64Ti], at the bounds, in every unit and canonical form or not. */
  static Arbitrary<String> sizes() {
    Arbitrary<String> edges =
        Arbitraries.of(
            "1Mi",
            "1Gi",
            "10Gi",
            "64Ti",
            "67108864Mi",
            "65536Gi",
            "1024Mi",
            "1048576Mi",
            "0001Gi",
            "1023Mi",
            "1025Mi",
            "3Ti");
    Arbitrary<String> small =
        Combinators.combine(Arbitraries.integers().between(1, 2048), Arbitraries.of("Mi", "Gi"))
            .as((n, unit) -> n + unit);
    Arbitrary<String> large = Arbitraries.integers().between(1, 64).map(n -> n + "Ti");
    return Arbitraries.frequencyOf(Tuple.of(2, edges), Tuple.of(3, small), Tuple.of(1, large));
  }

  // Cron fields: values in range, in every shape the CRD (and Kubernetes) accepts.
  private static final List<String> MONTH_NAMES =
      List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec");
  private static final List<String> WEEKDAY_NAMES =
      List.of("sun", "mon", "tue", "wed", "thu", "fri", "sat");

  private static Arbitrary<String> cronValue(int lo, int hi, List<String> names) {
    Arbitrary<String> number =
        Combinators.combine(Arbitraries.integers().between(lo, hi), Arbitraries.of("", "", "0"))
            .as((n, zero) -> zero + n);
    if (names == null) {
      return number;
    }
    Arbitrary<String> name =
        Combinators.combine(
                Arbitraries.integers().between(0, names.size() - 1),
                Arbitraries.of("lower", "upper", "title"))
            .as(
                (i, style) -> {
                  String n = names.get(i);
                  return switch (style) {
                    case "upper" -> n.toUpperCase(Locale.ROOT);
                    case "title" -> Character.toUpperCase(n.charAt(0)) + n.substring(1);
                    default -> n;
                  };
                });
    return Arbitraries.oneOf(number, name);
  }

  private static int valueOf(String value, int lo, List<String> names) {
    String v = value.toLowerCase(Locale.ROOT);
    return v.matches("[0-9]+") ? Integer.parseInt(v) : names.indexOf(v) + (lo == 1 ? 1 : 0);
  }

  private static Arbitrary<String> cronElement(
      int lo, int hi, List<String> names, boolean question) {
    Arbitrary<String> value = cronValue(lo, hi, names);
    Arbitrary<String> range =
        Combinators.combine(value, value)
            .as(
                (a, b) ->
                    valueOf(a, lo, names) <= valueOf(b, lo, names) ? a + "-" + b : b + "-" + a);
    Arbitrary<String> step = Arbitraries.integers().between(1, hi + 5).map(n -> "/" + n);
    Arbitrary<String> stepped =
        Combinators.combine(Arbitraries.oneOf(Arbitraries.just("*"), range, value), step)
            .as((r, s) -> r + s);
    List<Tuple.Tuple2<Integer, Arbitrary<? extends String>>> shapes = new ArrayList<>();
    shapes.add(Tuple.of(3, Arbitraries.just("*")));
    shapes.add(Tuple.of(3, value));
    shapes.add(Tuple.of(2, range));
    shapes.add(Tuple.of(2, stepped));
    if (question) {
      shapes.add(Tuple.of(1, Arbitraries.just("?")));
    }
    @SuppressWarnings({"unchecked", "rawtypes"})
    Tuple.Tuple2<Integer, Arbitrary<? extends String>>[] array =
        shapes.toArray(new Tuple.Tuple2[0]);
    return Arbitraries.frequencyOf(array);
  }

  private static Arbitrary<String> cronField(int lo, int hi, List<String> names, boolean question) {
    return cronElement(lo, hi, names, question)
        .list()
        .ofMinSize(1)
        .ofMaxSize(3)
        .map(elements -> String.join(",", elements));
  }

  /** Schedules Kubernetes accepts and that fire: macros, and five fields in every shape. */
  static Arbitrary<String> schedules() {
    Arbitrary<String> macro =
        Arbitraries.of(
            "@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually");
    Arbitrary<String> separator = Arbitraries.of(" ", " ", " ", "  ", "\t");
    Arbitrary<List<String>> fields =
        Combinators.combine(
                cronField(0, 59, null, false),
                cronField(0, 23, null, false),
                cronField(1, 31, null, true),
                cronField(1, 12, MONTH_NAMES, false),
                cronField(0, 6, WEEKDAY_NAMES, true))
            .as((a, b, c, d, e) -> List.of(a, b, c, d, e));
    Arbitrary<String> fiveFields =
        Combinators.combine(fields, separator)
            .as((f, sep) -> String.join(sep, f))
            .filter(FuzzCases::fires)
            .filter(s -> s.length() <= 128);
    return Arbitraries.frequencyOf(Tuple.of(1, macro), Tuple.of(4, fiveFields));
  }

  private static final int[] DAYS_IN_MONTH = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

  /**
   * Whether a five-field schedule has a day to run on, where the CRD can tell: plain days, plain
   * months, any weekday (the CRD refuses the others).
   */
  static boolean fires(String schedule) {
    String[] f = schedule.trim().split("\\s+");
    if (!(f[4].equals("*") || f[4].equals("?"))
        || !f[2].matches("[0-9]+(,[0-9]+)*")
        || !f[3].matches("[0-9A-Za-z]+(,[0-9A-Za-z]+)*")) {
      return true;
    }
    int smallestDay = Integer.MAX_VALUE;
    for (String d : f[2].split(",")) {
      smallestDay = Math.min(smallestDay, Integer.parseInt(d));
    }
    int longestMonth = 0;
    for (String m : f[3].split(",")) {
      longestMonth = Math.max(longestMonth, DAYS_IN_MONTH[valueOf(m, 1, MONTH_NAMES) - 1]);
    }
    return smallestDay <= longestMonth;
  }

  static Arbitrary<Map<String, Object>> backups() {
    return Combinators.combine(
            schedules().injectNull(0.2),
            Arbitraries.integers().between(1, 365).injectNull(0.3),
            sizes().injectNull(0.3))
        .as(
            (schedule, retention, storage) -> {
              Map<String, Object> backup = new LinkedHashMap<>();
              putIfPresent(backup, "schedule", schedule);
              putIfPresent(backup, "retention", retention);
              putIfPresent(backup, "storage", storage);
              return backup;
            });
  }

  /** CPU in every form, as the API server stores or rewrites it; "2000" fits no node. */
  static Arbitrary<Object> cpus() {
    return Arbitraries.frequencyOf(
        Tuple.of(
            8,
            Arbitraries.of(
                "100m", "250m", "500m", "0.5", ".5", "1", "1.5", "1000m", "2", "4", "8", 1, 2)),
        Tuple.of(1, Arbitraries.of("0", "1m", "0.001")),
        Tuple.of(1, Arbitraries.just("2000")));
  }

  /** Memory in every form; "8Ti" fits no node. */
  static Arbitrary<Object> memories() {
    return Arbitraries.frequencyOf(
        Tuple.of(
            8,
            Arbitraries.of(
                "64Mi", "256Mi", "512M", "1Gi", "1.5Gi", "1536Mi", "1024Mi", "2G", "4Gi", "16Gi")),
        Tuple.of(1, Arbitraries.of("0", "1", "1k", "1m")),
        Tuple.of(1, Arbitraries.just("8Ti")));
  }

  /**
   * spec.networkPolicy: off, on with the namespace shut, and clients by namespace, by pod labels
   * and by expressions (the policy must converge and then cost no writes, like every child).
   */
  static Arbitrary<Map<String, Object>> networkPolicies() {
    Map<String, Object> byNamespace =
        Map.of(
            "namespaceSelector",
            Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "shop")),
            "podSelector",
            Map.of("matchLabels", Map.of("app", "api")));
    Map<String, Object> byExpression =
        Map.of(
            "podSelector",
            Map.of(
                "matchExpressions",
                List.of(
                    Map.of("key", "tier", "operator", "In", "values", List.of("web", "jobs")),
                    Map.of("key", "legacy", "operator", "DoesNotExist"))));
    Map<String, Object> everyNamespace = Map.of("namespaceSelector", Map.of());
    return Arbitraries.of(
        Map.of("enabled", false),
        Map.of("allowSameNamespace", false),
        Map.of("clients", List.of(byNamespace)),
        Map.of("allowSameNamespace", false, "clients", List.of(byExpression, everyNamespace)));
  }

  static Arbitrary<Map<String, Object>> resources() {
    return Combinators.combine(
            cpus().injectNull(0.4),
            memories().injectNull(0.4),
            cpus().injectNull(0.4),
            memories().injectNull(0.4))
        .as(
            (requestCpu, requestMemory, limitCpu, limitMemory) -> {
              // The CRD refuses a request above its limit: order each pair.
              Object[] cpu = ordered(requestCpu, limitCpu);
              Object[] memory = ordered(requestMemory, limitMemory);
              Map<String, Object> resources = new LinkedHashMap<>();
              Map<String, Object> requests = new LinkedHashMap<>();
              putIfPresent(requests, "cpu", cpu[0]);
              putIfPresent(requests, "memory", memory[0]);
              Map<String, Object> limits = new LinkedHashMap<>();
              putIfPresent(limits, "cpu", cpu[1]);
              putIfPresent(limits, "memory", memory[1]);
              if (!requests.isEmpty()) {
                resources.put("requests", requests);
              }
              if (!limits.isEmpty()) {
                resources.put("limits", limits);
              }
              return resources;
            });
  }

  private static Object[] ordered(Object request, Object limit) {
    if (request != null && limit != null && amount(request).compareTo(amount(limit)) > 0) {
      return new Object[] {limit, request};
    }
    return new Object[] {request, limit};
  }

  private static BigDecimal amount(Object quantity) {
    return new Quantity(String.valueOf(quantity)).getNumericalAmount();
  }

  static Arbitrary<String> images(String engine, String version) {
    String repository =
        Map.of("postgresql", "postgres", "mysql", "mysql", "mariadb", "mariadb").get(engine);
    return Arbitraries.of(
        repository + ":" + version,
        "mirror.example:5000/library/" + repository + ":" + version,
        "localhost/cellar/" + repository,
        "registry.local/db/" + repository + "@sha256:" + "0123456789abcdef".repeat(4),
        "cellar.local/postgres:15");
  }

  /** Generated specs: every field, some left to their defaults. */
  static Arbitrary<Map<String, Object>> specs() {
    return engines()
        .flatMap(
            engine ->
                versions(engine)
                    .flatMap(
                        version ->
                            Combinators.combine(
                                    Combinators.combine(
                                            sizes(),
                                            Arbitraries.of("standard", "fixed", "missing-class", "")
                                                .injectNull(0.6),
                                            Arbitraries.integers().between(1, 5).injectNull(0.2),
                                            Arbitraries.of(true, false).injectNull(0.2))
                                        .as((a, b, c, d) -> java.util.Arrays.asList(a, b, c, d)),
                                    backups().injectNull(0.3),
                                    resources().injectNull(0.4),
                                    images(engine, version).injectNull(0.6),
                                    Arbitraries.of("Retain", "Delete").injectNull(0.3),
                                    networkPolicies().injectNull(0.5))
                                .as(
                                    (first,
                                        backup,
                                        resources,
                                        image,
                                        deletionPolicy,
                                        networkPolicy) -> {
                                      Map<String, Object> spec = new LinkedHashMap<>();
                                      spec.put("engine", engine);
                                      spec.put("version", version);
                                      spec.put("storage", first.get(0));
                                      putIfPresent(spec, "storageClassName", first.get(1));
                                      putIfPresent(spec, "replicas", first.get(2));
                                      putIfPresent(spec, "backupEnabled", first.get(3));
                                      putIfPresent(spec, "backup", backup);
                                      putIfPresent(spec, "resources", resources);
                                      putIfPresent(spec, "image", image);
                                      putIfPresent(spec, "deletionPolicy", deletionPolicy);
                                      putIfPresent(spec, "networkPolicy", networkPolicy);
                                      return spec;
                                    })));
  }

  /** Name lengths: a quarter at the limit. */
  static Arbitrary<Integer> nameLengths() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just(MAX_NAME)),
        Tuple.of(3, Arbitraries.integers().between(6, MAX_NAME - 1)));
  }

  /**
   * Case {@code index}'s name, {@code length} characters: {@code c<5 digits>} then {@code
   * -<letters>}. No name is another's prefix followed by '-', so every child's name tells its
   * Database apart.
   */
  static String name(int index, int length, String letters) {
    String base = String.format(Locale.ROOT, "c%05d", index);
    if (length <= base.length() + 1) {
      return base;
    }
    return base + "-" + letters.substring(0, length - base.length() - 1);
  }

  static Arbitrary<String> letters() {
    return Arbitraries.strings().withCharRange('a', 'z').numeric().ofLength(MAX_NAME);
  }

  /** Whether an object name belongs to the Database {@code name}: itself, a child or an Event. */
  static boolean belongsTo(String object, String name) {
    return object.equals(name)
        || object.startsWith(name + "-")
        || object.startsWith("data-" + name + "-")
        || object.startsWith(name + ".");
  }

  private static void putIfPresent(Map<String, Object> map, String key, Object value) {
    if (value != null && !(value instanceof Map<?, ?> m && m.isEmpty() && !key.equals("backup"))) {
      map.put(key, value);
    }
  }
}
