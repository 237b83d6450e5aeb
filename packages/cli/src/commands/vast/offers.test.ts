import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CuzkitError, GiB, MiB } from "@cuzkit/core";
import { parseMemTotal, parseNvidiaSmiCsv, recommend } from "@cuzkit/tuner";
import { normaliseOffer, offerHardware } from "@cuzkit/vast";
import { describe, expect, it } from "vitest";
import { useVastCli } from "../../test-support/vast-cli.js";

const cli = useVastCli();

const rowOf = (stdout: string, id: number) => stdout.split("\n").find((line) => line.includes(` ${id} `));

describe("cuzkit vast offers", () => {
  it("prints GPU, count, VRAM and RAM in GiB read as MiB, threads, $/h and reliability", async () => {
    const { stdout, error } = await cli.run([
      "offers",
      "--gpu",
      "RTX 4090",
      "--min-ram",
      "200GiB",
      "--max-price",
      "1.5",
    ]);
    expect(error).toBeUndefined();
    expect(stdout).toMatch(/GPU.*N.*VRAM GiB.*RAM GiB.*CPU thr.*\$\/h.*Reliab/);
    // 24564 MiB = 24.0 GiB (not 23), 257000 MiB = 251.0 GiB, 32 threads, $0.850/h, 99.5 %
    expect(rowOf(stdout, 1001)).toMatch(
      /1001\s*│\s*RTX 4090\s*│\s*2\s*│\s*24\.0\s*│\s*251\.0\s*│\s*32\s*│\s*0\.850\s*│\s*99\.5%\s*│\s*Poland, PL/,
    );
    expect(stdout).not.toContain(" 1004 "); // too little RAM
    expect(stdout).not.toContain(" 1005 "); // unverified
  });

  it("--min-gpu-ram 24GiB keeps the RTX 4090 and 3090 (24564 and 24576 MiB): the card class", async () => {
    const { stdout } = await cli.run(["offers", "--min-gpu-ram", "24GiB", "--workload", "none"]);
    for (const id of [1001, 1002, 1003, 1004]) expect(rowOf(stdout, id)).toBeDefined();
    const { stdout: big } = await cli.run(["offers", "--min-gpu-ram", "48GiB", "--workload", "none"]);
    expect(rowOf(big, 1003)).toBeDefined(); // A40, 46068 MiB with ECC
    expect(rowOf(big, 1001)).toBeUndefined();
  });

  it("refuses a size without a unit, with a hint", async () => {
    const { error } = await cli.run(["offers", "--min-gpu-ram", "24"]);
    expect(error).toBeInstanceOf(CuzkitError);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect((error as CuzkitError).message).toContain('--min-gpu-ram "24" has no unit');
    expect((error as CuzkitError).hint).toContain("24GiB");
    expect(cli.server.requests).toHaveLength(0);
  });

  it("sends the flags as a typed query with numbers and MiB", async () => {
    await cli.run([
      "offers",
      "--gpu",
      "RTX 4090,A40",
      "--num-gpus",
      "2",
      "--min-ram",
      "256GiB",
      "--limit",
      "5",
      "--order",
      "dph_total",
    ]);
    expect(cli.server.requestsTo("/api/v0/bundles/")[0]!.body).toMatchObject({
      gpu_name: { in: ["RTX 4090", "A40"] },
      num_gpus: { eq: 2 },
      cpu_ram: { gte: 262144 },
      limit: 5,
      order: [["dph_total", "asc"]],
      type: "on-demand",
      allocated_storage: 10,
    });
  });

  it("takes vast-cli's order spelling FIELD- for descending", async () => {
    await cli.run(["offers", "--order", "num_gpus-,dph_total", "--workload", "none"]);
    expect(cli.server.requestsTo("/api/v0/bundles/")[0]!.body).toMatchObject({
      order: [
        ["num_gpus", "desc"],
        ["dph_total", "asc"],
      ],
    });
  });

  it("takes vast-cli's spelling --gpu RTX_4090", async () => {
    const { stdout } = await cli.run(["offers", "--gpu", "RTX_4090", "--workload", "none"]);
    expect(cli.server.requestsTo("/api/v0/bundles/")[0]!.body).toMatchObject({
      gpu_name: { eq: "RTX 4090" },
    });
    expect(rowOf(stdout, 1001)).toBeDefined();
  });

  it("says how GPU names are written when a GPU filter finds nothing", async () => {
    const { stdout } = await cli.run(["offers", "--gpu", "RTX4090"]);
    expect(stdout).toContain('no offers match; GPU names are as Vast.ai writes them, such as "RTX 4090"');
  });

  it("--query takes vast-cli's language, and flags add to it", async () => {
    const { stdout, error } = await cli.run([
      "offers",
      "--query",
      "gpu_ram>=24 num_gpus=2 reliability>0.99",
      "--max-price",
      "2",
      "--workload",
      "none",
    ]);
    expect(error).toBeUndefined();
    const body = cli.server.requestsTo("/api/v0/bundles/")[0]!.body as Record<string, Record<string, number>>;
    expect(body).toMatchObject({ num_gpus: { eq: 2 }, reliability: { gt: 0.99 }, dph_total: { lte: 2 } });
    expect(body.gpu_ram!.gte).toBeLessThanOrEqual(24564);
    expect(rowOf(stdout, 1001)).toBeDefined(); // 2x 4090 at 99.5 %
    expect(rowOf(stdout, 1002)).toBeUndefined(); // 98 %
  });

  it("--query with an unknown field is a clear error before any call", async () => {
    const { error } = await cli.run(["offers", "--query", "gpu_rma>=24"]);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect((error as CuzkitError).message).toContain('unknown field "gpu_rma"');
    expect(cli.server.requests).toHaveLength(0);
  });

  it("shows the tuner's fits / proofs per hour / $ per 1000 proofs for each offer", async () => {
    const { stdout } = await cli.run(["offers", "--workload", "porep"]);
    expect(stdout).toMatch(/Fits.*Proofs\/h.*\$\/1k proofs/);
    // Each listed offer's columns are the tuner's recommend() on its hardware, whatever the model says.
    const outcomes = new Set<boolean>();
    for (const id of [1001, 1002, 1003, 1004]) {
      const record = cli.server.offers.find((o) => o.id === id)!;
      const expected = recommend(offerHardware(normaliseOffer(record)!), { workload: "porep" });
      outcomes.add(expected.feasible);
      const pph = expected.predicted.proofsPerHour;
      const cells = expected.feasible
        ? `│\\s*yes\\s*│\\s*${Math.round(pph)}\\s*│\\s*${(((record.dph_total as number) / pph) * 1000).toFixed(2)}\\s*│`
        : "│\\s*no\\s*│\\s*│\\s*│";
      expect(rowOf(stdout, id), `offer ${id}`).toMatch(new RegExp(`${cells}$`));
    }
    expect([...outcomes].sort()).toEqual([false, true]); // the samples include both a fit and a misfit
    const { stdout: json } = await cli.run(["offers", "--json"]);
    const offers = JSON.parse(json) as { id: number; prediction: { fits: boolean; proofsPerHour: number } }[];
    const a40 = recommend(offerHardware(normaliseOffer(cli.server.offers.find((o) => o.id === 1003))!), {
      workload: "porep",
    });
    expect(offers.find((o) => o.id === 1003)?.prediction).toMatchObject({
      fits: a40.feasible,
      proofsPerHour: a40.feasible ? a40.predicted.proofsPerHour : 0,
    });
    const { stdout: none } = await cli.run(["offers", "--workload", "none"]);
    expect(none).not.toContain("Proofs/h");
  });

  it("prints JSON with --json, in bytes and $/h", async () => {
    const { stdout } = await cli.run(["offers", "--json", "--order", "dph_total:asc"]);
    const offers = JSON.parse(stdout) as { id: number; cpuRamBytes: number; dphTotal: number }[];
    expect(offers.map((o) => o.id)).toEqual([1004, 1002, 1001, 1003]);
    expect(offers[0]).toMatchObject({ cpuRamBytes: 125_000 * MiB, dphTotal: 0.4 });
  });

  it("says so when no key is configured, with a hint and without a flag to pass one", async () => {
    const { error } = await cli.run(["offers"], {}, { VAST_API_KEY: undefined });
    expect(error).toMatchObject({ code: "VAST_NO_API_KEY" });
    expect((error as CuzkitError).hint).toMatch(/VAST_API_KEY/);
    const { error: flagError } = await cli.run(["offers", "--api-key", "x"]);
    expect(flagError).toMatchObject({ code: "commander.unknownOption" });
  });

  it("reads the key from the Vast CLI's key file under HOME", async () => {
    mkdirSync(join(cli.home, ".config", "vastai"), { recursive: true });
    writeFileSync(join(cli.home, ".config", "vastai", "vast_api_key"), `${cli.server.apiKey}\n`);
    const { error } = await cli.run(["offers", "--json"], {}, { VAST_API_KEY: undefined });
    expect(error).toBeUndefined();
  });
});

describe("one conversion for the Vast client and the tuner", () => {
  it("an offer's VRAM and RAM equal what the tuner detects on the rented machine", () => {
    // The same RTX 4090 machine: Vast's offer record, and nvidia-smi and /proc/meminfo on it.
    const memTotalKiB = 263_164_908;
    const offer = normaliseOffer({
      id: 1,
      gpu_name: "RTX 4090",
      num_gpus: 1,
      gpu_ram: 24564,
      cpu_ram: Math.floor(memTotalKiB / 1024),
      dph_total: 0.4,
    })!;
    const detected = parseNvidiaSmiCsv("0, NVIDIA GeForce RTX 4090, 24564\n").gpus[0]!;
    expect(offerHardware(offer).gpus[0]!.vramBytes).toBe(detected.vramBytes);
    expect(offer.gpuRamBytes / GiB).toBeCloseTo(23.99, 2);
    const meminfoBytes = parseMemTotal(`MemTotal:       ${memTotalKiB} kB\n`)!;
    expect(Math.abs(offer.cpuRamBytes - meminfoBytes)).toBeLessThan(MiB); // MiB rounding only
  });
});
