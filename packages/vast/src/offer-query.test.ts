import { InvalidInputError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { buildOfferQuery } from "./offer-query.js";

describe("buildOfferQuery", () => {
  it("sends our explicit defaults, default order, type and allocated storage", () => {
    expect(buildOfferQuery()).toEqual({
      verified: { eq: true },
      rentable: { eq: true },
      rented: { eq: false },
      order: [["score", "desc"]],
      type: "on-demand",
      allocated_storage: 10,
    });
  });

  it("maps our names to API columns and sends numbers as numbers", () => {
    const body = buildOfferQuery({
      filters: {
        gpuName: "RTX 4090",
        numGpus: { gte: 2, lte: 4 },
        dphTotal: { lte: 1.5 },
        reliability: { gt: 0.98 },
        geolocation: { in: ["Poland, PL", "Czechia, CZ"] },
        gpuArch: { notin: ["amd"] },
        cpuArch: { neq: "arm64" },
      },
      order: [
        ["dphTotal", "asc"],
        ["reliability", "desc"],
      ],
      limit: 20,
      type: "bid",
      allocatedStorageGb: 200,
    });
    expect(body).toMatchObject({
      gpu_name: { eq: "RTX 4090" },
      num_gpus: { gte: 2, lte: 4 },
      dph_total: { lte: 1.5 },
      reliability: { gt: 0.98 },
      geolocation: { in: ["Poland, PL", "Czechia, CZ"] },
      gpu_arch: { notin: ["amd"] },
      cpu_arch: { neq: "arm64" },
      order: [
        ["dph_total", "asc"],
        ["reliability", "desc"],
      ],
      limit: 20,
      type: "bid",
      allocated_storage: 200,
    });
    expect(JSON.stringify(body)).not.toMatch(/"\d+(\.\d+)?"/); // no numbers as strings
  });

  it("converts bytes and size strings to API MiB and disk to GB, never tightening a bound", () => {
    const body = buildOfferQuery({
      filters: {
        cpuRamBytes: { gte: "256GiB", lte: 1.5e12 },
        diskSpaceBytes: { gte: "500GB", lte: 1.5e12 },
      },
    });
    expect(body.cpu_ram).toEqual({ gte: 262144, lte: 1430511 }); // 1.5e12 B = 1430511.47 MiB: a maximum rounds down
    expect(body.disk_space).toEqual({ gte: 500, lte: 1500 });
    expect(buildOfferQuery({ filters: { cpuRamBytes: { gt: 1 } } }).cpu_ram).toEqual({ gt: 1 }); // a minimum rounds up
  });

  it("matches GPU memory by card class: 24564 MiB passes 24GiB, a 22 GiB card does not", () => {
    const passes = (reportedMib: number, condition: Record<string, unknown> | string) => {
      const bound = buildOfferQuery({ filters: { gpuRamBytes: condition as never } }).gpu_ram as Record<
        string,
        number
      >;
      return (
        (bound.gte === undefined || reportedMib >= bound.gte) &&
        (bound.lte === undefined || reportedMib <= bound.lte) &&
        (bound.lt === undefined || reportedMib < bound.lt)
      );
    };
    expect(passes(24564, { gte: "24GiB" })).toBe(true); // RTX 4090
    expect(passes(23028, { gte: "24GiB" })).toBe(true); // A10 (ECC)
    expect(passes(22528, { gte: "24GiB" })).toBe(false); // 22 GiB 2080 Ti
    expect(passes(81559, { gte: "80GiB" })).toBe(true); // H100 80GB
    expect(passes(46068, { gte: "48GiB" })).toBe(true); // A40
    expect(passes(40960, { gte: "48GiB" })).toBe(false); // A100 40GB
    expect(passes(24564, "24GiB")).toBe(true); // eq is the class range
    expect(passes(32607, "24GiB")).toBe(false); // RTX 5090
    expect(passes(49152, { lte: "46GiB" })).toBe(true); // an upper bound grows by the tolerance too
    const exact = buildOfferQuery({ filters: { gpuRamBytes: { gte: "24GiB" } }, gpuMemoryTolerance: 0 });
    expect(exact.gpu_ram).toEqual({ gte: 24576 });
    expect(() => buildOfferQuery({ gpuMemoryTolerance: 0.9 })).toThrow(/gpuMemoryTolerance/);
  });

  it("lets a filter replace a default and 'any' drop one", () => {
    const body = buildOfferQuery({
      filters: { rented: { in: [true, false] } },
      defaults: { verified: "any" },
    });
    expect(body.verified).toBeUndefined();
    expect(body.rented).toEqual({ in: [true, false] });
    expect(body.rentable).toEqual({ eq: true });
  });

  it("passes raw conditions for untyped columns through", () => {
    expect(buildOfferQuery({ raw: { has_avx: { eq: true } } }).has_avx).toEqual({ eq: true });
  });

  it.each([
    [{ filters: { nope: 1 } }, /unknown offer field/],
    [{ filters: { numGpus: { like: 2 } } }, /unknown operator/],
    [{ filters: { numGpus: "2" } }, /bad value/],
    [{ filters: { numGpus: Number.NaN } }, /bad value/],
    [{ filters: { gpuName: { in: [] } } }, /non-empty array/],
    [{ filters: { cpuRamBytes: "lots" } }, /cannot read the size/],
    [{ limit: 0 }, /limit/],
    [{ type: "spot" }, /offer type/],
    [{ order: [["price", "asc"]] }, /cannot order/],
    [{ allocatedStorageGb: -1 }, /allocatedStorageGb/],
  ])("rejects bad input %#", (query, message) => {
    expect(() => buildOfferQuery(query as never)).toThrow(InvalidInputError);
    expect(() => buildOfferQuery(query as never)).toThrow(message);
  });
});
