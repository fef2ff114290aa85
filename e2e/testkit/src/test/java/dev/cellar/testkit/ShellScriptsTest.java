package dev.cellar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every shell script in the repository is shellcheck-clean: the harness (e2e/local-cluster, the
 * real node, kind), bin/, .ci/ and the engine scripts the operator ships. A script is a file git
 * tracks that ends in .sh or starts with a bash/sh shebang; each is checked with {@code shellcheck
 * -x} from its own directory, which is where the scripts' {@code source=} directives resolve.
 *
 * <p>bin/test installs shellcheck. In CI (CI=true) a missing shellcheck fails; elsewhere the test
 * is skipped, saying so.
 */
class ShellScriptsTest {

  private static final Pattern SHELL_SHEBANG =
      Pattern.compile("^#!\\S*(/env\\s+)?\\S*\\b(ba)?sh\\b.*");

  @TestFactory
  Stream<DynamicTest> everyShellScriptIsShellcheckClean() throws Exception {
    boolean available = shellcheckAvailable();
    if (!available && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(
          "shellcheck is not installed, and CI=true requires it (bin/test installs it:"
              + " apt-get install shellcheck)");
    }
    Assumptions.assumeTrue(
        available,
        "shellcheck is not installed: the shell scripts are not checked (bin/test installs it;"
            + " in CI this fails)");
    Path root = repositoryRoot();
    List<Path> scripts = scripts(root);
    assertThat(scripts)
        .as("the scripts git lists")
        .contains(root.resolve("e2e/local-cluster"), root.resolve("e2e/realnode/node.sh"));
    return scripts.stream()
        .map(
            script ->
                DynamicTest.dynamicTest(
                    root.relativize(script).toString(), () -> assertClean(root, script)));
  }

  private static void assertClean(Path root, Path script) throws Exception {
    Path log = Files.createTempFile("shellcheck", ".log");
    try {
      Process p =
          new ProcessBuilder("shellcheck", "-x", script.getFileName().toString())
              .directory(script.getParent().toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      assertThat(p.waitFor(2, TimeUnit.MINUTES))
          .as("shellcheck finished within 2 minutes")
          .isTrue();
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(p.exitValue())
          .as("shellcheck -x %s (from its directory) says:%n%s", root.relativize(script), output)
          .isZero();
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** Files git tracks that end in .sh or start with a bash or sh shebang. */
  private static List<Path> scripts(Path root) throws Exception {
    Process git =
        new ProcessBuilder("git", "ls-files", "-z")
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
