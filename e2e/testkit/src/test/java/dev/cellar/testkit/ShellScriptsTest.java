package dev.cellar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every shell script in the repository is shellcheck-clean: the harness (e2e/local-cluster, the
 * real node, kind), bin/, .ci/ and the engine scripts the operator ships. A script is a file git
 * tracks (or would: new and not ignored) that ends in .sh or starts with a bash/sh shebang; each is
 * checked with {@code shellcheck -x} from its own directory, which is where the scripts' {@code
 * source=} directives resolve.
 *
 * <p>bin/test installs shellcheck. In CI (CI=true, which .ci/run sets) a missing shellcheck fails;
 * elsewhere the test is skipped, saying so ({@link Prerequisites}): a developer without it still
 * runs every other test.
 */
class ShellScriptsTest {

  private static final Pattern SHELL_SHEBANG =
      Pattern.compile("^#!\\S*(/env\\s+)?\\S*\\b(ba)?sh\\b.*");

  @TestFactory
  Stream<DynamicTest> everyShellScriptIsShellcheckClean() throws Exception {
    if (!shellcheckAvailable()) {
      // One dynamic test that skips (or in CI fails): an aborted factory is not reported as a
      // skipped test.
      return Stream.of(
          DynamicTest.dynamicTest(
              "shellcheck",
              () ->
                  Prerequisites.require(
                      false,
                      "shellcheck, to check the shell scripts",
                      "bin/test installs it (apt-get install shellcheck)")));
    }
    Path root = repositoryRoot();
    List<Path> scripts = scripts(root);
    assertThat(scripts)
        .as("the scripts git lists")
        .contains(root.resolve("e2e/local-cluster"), root.resolve("e2e/realnode/node.sh"));
    // shellcheck takes seconds on a script that sources others: all run at once, a core each.
    ExecutorService pool = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
    List<Future<Checked>> results = new ArrayList<>();
    for (Path script : scripts) {
      results.add(pool.submit(() -> shellcheck(script)));
    }
    pool.shutdown();
    return IntStream.range(0, scripts.size())
        .mapToObj(
            i ->
                DynamicTest.dynamicTest(
                    root.relativize(scripts.get(i)).toString(),
                    () -> {
                      Checked checked = results.get(i).get(2, TimeUnit.MINUTES);
                      assertThat(checked.exit())
                          .as(
                              "shellcheck -x %s (from its directory) says:%n%s",
                              root.relativize(scripts.get(i)), checked.output())
                          .isZero();
                    }));
  }

  private record Checked(int exit, String output) {}

  private static Checked shellcheck(Path script) throws Exception {
    Path log = Files.createTempFile("shellcheck", ".log");
    try {
      Process p =
          new ProcessBuilder("shellcheck", "-x", script.getFileName().toString())
              .directory(script.getParent().toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        return new Checked(-1, "shellcheck did not finish within 2 minutes");
      }
      return new Checked(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /**
   * Files git tracks, or would (new, not ignored: a script is checked before it is committed), that
   * end in .sh or start with a bash or sh shebang.
   */
  private static List<Path> scripts(Path root) throws Exception {
    Process git =
        new ProcessBuilder("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
            .directory(root.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String listing = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(git.waitFor()).as("git ls-files").isZero();
    List<Path> scripts = new ArrayList<>();
    for (String name : listing.split("\0")) {
      if (name.isEmpty()) {
        continue;
      }
      Path file = root.resolve(name);
      if (!Files.isRegularFile(file)) {
        continue; // deleted in the working tree
      }
      if (name.endsWith(".sh") || SHELL_SHEBANG.matcher(firstLine(file)).matches()) {
        scripts.add(file);
      }
    }
    return scripts;
  }

  private static String firstLine(Path file) throws IOException {
    try (var in = Files.newInputStream(file)) {
      String head = new String(in.readNBytes(200), StandardCharsets.ISO_8859_1);
      int end = head.indexOf('\n');
      return end < 0 ? head : head.substring(0, end);
    }
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.exists(d.resolve(".git"))) {
        return d;
      }
    }
    throw new AssertionError("no git repository above " + dir);
  }

  private static boolean shellcheckAvailable() throws InterruptedException {
    try {
      Process p =
          new ProcessBuilder("shellcheck", "--version")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException notFound) {
      return false;
    }
  }
}
