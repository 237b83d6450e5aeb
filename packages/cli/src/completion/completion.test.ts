import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { daemonDialects } from "@cuzkit/core";
import { afterAll, describe, expect, it } from "vitest";
import { createProgram } from "../program.js";
import { runCli } from "../run-cli.js";
import { memoryIO } from "../test-support/memory-io.js";

// Each shell's script is generated, loaded into the real shell, and asked to complete what a
// user types. bash is everywhere (CI included); zsh and fish are checked where installed.

const dir = mkdtempSync(join(tmpdir(), "cuzkit-completion-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function script(shell: string): Promise<string> {
  const { io, stdout } = memoryIO();
  expect(await runCli(["completion", shell], io)).toBe(0);
  const file = join(dir, `cuzkit.${shell}`);
  writeFileSync(file, stdout());
  return file;
}

const has = (shell: string) => spawnSync(shell, ["-c", "exit 0"]).status === 0;

/** What the shell offers for the words typed (the last one possibly partial). */
type Complete = (typed: string) => string[];

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

function bash(file: string): Complete {
  return (typed) => {
    const words = typed.split(" ");
    const program = `source ${JSON.stringify(file)}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(" ")}); COMP_CWORD=${words.length - 1}
_cuzkit; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return lines(execFileSync("bash", ["-c", program], { encoding: "utf8", cwd: dir }));
  };
}

function zsh(file: string): Complete {
  return (typed) => {
    const words = typed.split(" ");
    // Outside a completion widget, stand-ins print what would be offered.
    const program = `compdef() { :; }
_describe() { local name=\${@[-1]}; print -rl -- \${\${(P)name}%%:*}; }
compadd() { shift; print -rl -- "$@"; }
_files() { print -r -- FILES; }
source ${JSON.stringify(file)}
words=(${words.map((w) => JSON.stringify(w)).join(" ")}); CURRENT=${words.length}
_cuzkit`;
    // zsh itself matches the candidates against the word typed; the stand-ins do not.
    const typedWord = words.at(-1) ?? "";
    return lines(execFileSync("zsh", ["-f", "-c", program], { encoding: "utf8", cwd: dir }))
      .map((l) => l.replaceAll("\\:", ":"))
      .filter((l) => l.startsWith(typedWord));
  };
}

function fish(file: string): Complete {
  return (typed) =>
    lines(
      execFileSync(
        "fish",
        ["--no-config", "-c", `source ${JSON.stringify(file)}; complete -C ${JSON.stringify(typed)}`],
        {
          encoding: "utf8",
          cwd: dir,
        },
      ),
    ).map((l) => l.split("\t")[0] as string);
}

const shells: { shell: string; complete: (file: string) => Complete }[] = [
  { shell: "bash", complete: bash },
  { shell: "zsh", complete: zsh },
  { shell: "fish", complete: fish },
];

describe("cuzkit completion", () => {
  const topLevel = createProgram(memoryIO().io).commands.map((c) => c.name());

  for (const { shell, complete } of shells) {
    describe.skipIf(!has(shell))(shell, () => {
      it("offers every command, subcommands after their parent, and the options of the command typed", async () => {
        const offer = complete(await script(shell));
        expect(offer("cuzkit ").filter((w) => !w.startsWith("-"))).toEqual(expect.arrayContaining(topLevel));
        expect(offer("cuzkit fl")).toEqual(["fleet"]);
        expect(offer("cuzkit fleet se")).toEqual(["serve"]);
        expect(offer("cuzkit vast ssh-key ")).toEqual(expect.arrayContaining(["attach", "list"]));
        expect(offer("cuzkit fleet serve --curio-p")).toEqual(["--curio-poll"]);
        // Options belong to their command: `tune` has no --spawn.
        expect(offer("cuzkit tune --sp")).toEqual([]);
      });

      it("offers an option's choices as its value, and skips a value when finding the command", async () => {
        const offer = complete(await script(shell));
        expect(offer("cuzkit bench --dialect ").sort()).toEqual([...daemonDialects].sort());
        // `fleet` here is --addr's value, not the fleet command.
        expect(offer("cuzkit bench --addr fleet --sp")).toEqual(["--spawn"]);
      });
    });
  }

  it("refuses an unknown shell with the shells it knows", async () => {
    const { io, stderr } = memoryIO();
    expect(await runCli(["completion", "tcsh"], io)).not.toBe(0);
    expect(stderr()).toContain('unknown shell "tcsh"');
    expect(stderr()).toContain("bash, zsh, fish");
  });
});
