package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ArgsTest {
  @Test
  void flagsMayComeBeforeOrAfterTheCommandInEveryKubectlSpelling() throws Exception {
    Args args =
        Args.parse(
            "-n",
            "shop",
            "status",
            "orders",
            "--context=kind-cellar",
            "--kubeconfig",
            "/k",
            "-ojson");
    assertThat(args.command()).isEqualTo("status");
    assertThat(args.positionals()).containsExactly("orders");
    assertThat(args.option("namespace")).hasValue("shop");
    assertThat(args.option("context")).hasValue("kind-cellar");
    assertThat(args.option("kubeconfig")).hasValue("/k");
    assertThat(args.output()).isEqualTo("json");
    assertThat(Args.parse("status", "x", "--namespace=a").option("namespace")).hasValue("a");
    assertThat(Args.parse("status", "x", "-na").option("namespace")).hasValue("a");
    assertThat(Args.parse("status", "x", "-o", "yaml").output()).isEqualTo("yaml");
    assertThat(Args.parse("status", "x").output()).isEqualTo("text");
  }

  @Test
  void whatFollowsTheDoubleDashIsPassedOnUntouched() throws Exception {
    Args args = Args.parse("psql", "orders", "--replica", "--", "-c", "select 1", "--namespace");
    assertThat(args.flag("replica")).isTrue();
    assertThat(args.passthrough()).containsExactly("-c", "select 1", "--namespace");
    assertThat(args.option("namespace")).isEmpty();
    args.expect(List.of("NAME"), Set.of("replica", "--"));
  }

  @Test
  void booleanFlagsAndNumbers() throws Exception {
    Args args = Args.parse("logs", "orders", "-f", "--tail", "-5");
    assertThat(args.flag("follow")).isTrue();
    assertThat(args.option("tail")).hasValue("-5");
    assertThat(Args.parse("backup", "x", "--wait=false").flag("wait")).isFalse();
    assertThat(Args.parse().command()).isEqualTo("help");
  }

  @Test
  void wrongCommandLinesAreRefusedWithAReason() throws Exception {
    assertThatThrownBy(() -> Args.parse("status", "x", "--bogus"))
        .hasMessage("unknown flag: --bogus");
    assertThatThrownBy(() -> Args.parse("status", "x", "-z")).hasMessage("unknown flag: -z");
    assertThatThrownBy(() -> Args.parse("logs", "x", "--tail", "ten").number("tail"))
        .hasMessage("--tail must be a number, not ten");
    assertThat(Args.parse("restart", "x", "--timeout=90").number("timeout")).hasValue(90L);
    assertThatThrownBy(() -> Args.parse("status", "x", "-n"))
        .hasMessage("flag --namespace needs a value");
    assertThatThrownBy(() -> Args.parse("backup", "x", "--wait=yes"))
        .hasMessageContaining("takes no value");
    assertThatThrownBy(() -> Args.parse("status", "x", "-o", "wide").output())
        .hasMessage("--output must be json or yaml, not wide");
    assertThatThrownBy(() -> Args.parse("status").expect(List.of("NAME"), Set.of()))
        .hasMessage("status needs NAME");
    assertThatThrownBy(() -> Args.parse("status", "a", "b").expect(List.of("NAME"), Set.of()))
        .hasMessage("status needs NAME; unexpected: [b]");
    assertThatThrownBy(
            () -> Args.parse("backup", "a", "--to", "b").expect(List.of("NAME"), Set.of("wait")))
        .hasMessage("backup does not take --to");
    assertThatThrownBy(
            () -> Args.parse("status", "a", "--", "x").expect(List.of("NAME"), Set.of("output")))
        .hasMessage("status takes no arguments after --");
  }

  @Test
  void unknownCommandsAndUsageErrorsExitWithTwo() {
    var out = new java.io.ByteArrayOutputStream();
    var err = new java.io.ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"frobnicate", "x"},
            new java.io.PrintStream(out),
            new java.io.PrintStream(err),
            false,
            java.util.Map.of());
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("unknown command frobnicate");
    code =
        Main.run(
            new String[] {"help"},
            new java.io.PrintStream(out),
            new java.io.PrintStream(err),
            false,
            java.util.Map.of());
    assertThat(code).isZero();
    assertThat(out.toString()).contains("status NAME", "report NAME", "promote NAME POD");
  }
}
