import { describe, expect, it } from "vitest";
import { fleetSettings, useFleetCli } from "../test-support/fleet-cli.js";

// Every command that changes the fleet holds its writer lease for its length: while another
// manager holds it, `run --once`, `deploy`, `destroy` and a second `serve` refuse, name the
// holder and when its lease lapses, and change nothing.

const cli = useFleetCli();
const createPath = /^\/api\/v0\/asks\/\d+\/$/;

describe("cuzkit fleet and the writer lease", () => {
  it("refuses run --once, deploy, destroy and serve while another manager holds the store", async () => {
    // A serve (it stops at once here) saves the settings, and gives its lease up when it stops.
    expect(
      (await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0", ...fleetSettings])).error,
    ).toBeUndefined();
    const first = await cli.run(["deploy", "--db", cli.db, "--offer", "1002", ...fleetSettings]);
    expect(first.error).toBeUndefined();
    const id = /^(i-[0-9a-f]{8}) /.exec(first.stdout)?.[1] as string;
    // The deploy gave its lease up when it ended: the next command takes it at once.
    const creates = cli.server.requestsTo(createPath, "PUT").length;

    const { openFleetStore } = await import("@cuzkit/fleet");
    const other = openFleetStore({ path: cli.db });
    const lease = other.writerLease({ fleet: "default", holder: "ops-1 pid 4242 #c0ffee" });
    try {
      await lease.acquireNow();
      const refusals = {
        once: await cli.run(["run", "--once", "--db", cli.db, "--target-instances", "2", ...fleetSettings]),
        deploy: await cli.run(["deploy", "--db", cli.db, "--offer", "1003", ...fleetSettings]),
        destroy: await cli.run(["destroy", "--db", cli.db, id]),
        serve: await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0", ...fleetSettings]),
      };
      for (const [command, result] of Object.entries(refusals)) {
        expect(result.error, command).toMatchObject({
          code: "FLEET_LEASE_HELD",
          message: expect.stringMatching(/ops-1 pid 4242 #c0ffee \(epoch \d+, lease until \d{4}-.*Z\)/),
          hint: expect.stringContaining("stop the other manager"),
        });
      }
      // Status (a read) works, and says who writes.
      const status = await cli.run(["status", "--db", cli.db]);
      expect(status.error).toBeUndefined();
      expect(status.stdout).toMatch(/\nwriter: ops-1 pid 4242 #c0ffee \(epoch \d+, lease until .*Z\)\n$/);
      // Nothing was rented or destroyed, and the store is as it was.
      expect(cli.server.requestsTo(createPath, "PUT")).toHaveLength(creates);
      expect(cli.server.requestsTo(/^\/api\/v0\/instances\/\d+\/$/, "DELETE")).toHaveLength(0);
      expect((await other.require(id)).state).toBe("booting");
      expect(await other.list()).toHaveLength(1);
    } finally {
      await lease.release();
      await other.close();
    }

    // Released: the same commands act.
    const destroy = await cli.run(["destroy", "--db", cli.db, id]);
    expect(destroy.error).toBeUndefined();
    expect(destroy.stdout).toBe(`${id} destroyed\n`);
  });
});
