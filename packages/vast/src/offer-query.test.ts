import { GiB, InvalidInputError } from "@cuzkit/core";
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

  it("converts bytes and size strings to API MB and disk to GB, never relaxing a bound", () => {
    const body = buildOfferQuery({
      filters: {
        cpuRamBytes: { gte: "256GiB" },
        gpuRamBytes: { gte: 24 * GiB, lt: 48 * GiB },
        diskSpaceBytes: { gte: "500GB" },
        gpuTotalRamBytes: 48_000_000_000,
      },
    });
    // 256 GiB = 274877.906944 MB: a minimum rounds up.
    expect(body.cpu_ram).toEqual({ gte: 274878 });
    // 48 GiB = 51539.607552 MB: a maximum rounds down.
    expect(body.gpu_ram).toEqual({ gte: 25770, lt: 51539 });
    expect(body.disk_space).toEqual({ gte: 500 });
    expect(body.gpu_total_ram).toEqual({ eq: 48000 });
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
