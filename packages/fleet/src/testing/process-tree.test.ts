import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { descendantPids, signalEach } from "./process-tree.js";

const started: number[] = [];
afterEach(() => {
  signalEach(started, "SIGKILL");
  started.length = 0;
});

describe("descendantPids", () => {
  it("finds a grandchild that runs in a process group of its own", async () => {
    // sh -> a detached sh (its own group, like the agent's daemon) -> sleep
    const child = spawn("sh", ["-c", "setsid sh -c 'sleep 30' & echo $!; wait"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    started.push(child.pid as number);
    const grandchild = await new Promise<number>((resolve) =>
      child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    started.push(grandchild);
    expect(descendantPids(child.pid as number)).toContain(grandchild);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    signalEach([grandchild, child.pid as number], "SIGKILL");
    await exited;
    expect(descendantPids(child.pid as number)).toEqual([]);
  });
});
