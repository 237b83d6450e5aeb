import { GiB, InvalidInputError, MiB } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { buildOfferQuery } from "./offer-query.js";
import { parseOfferQuery } from "./query-language.js";

/** The API body a query string ends up as, through our typed query. */
const bodyOf = (text: string) => {
  const parsed = parseOfferQuery(text);
  return buildOfferQuery({ filters: parsed.filters, raw: parsed.raw, defaults: parsed.defaults });
};

// The examples of `vastai search offers --help` (vast-ai/vast-cli vastai/cli/commands/offers.py).
describe("parseOfferQuery on vast-cli's own examples", () => {
  it("'reliability > 0.98 num_gpus=1 gpu_name=RTX_3090'", () => {
    expect(parseOfferQuery("reliability > 0.98 num_gpus=1 gpu_name=RTX_3090").filters).toEqual({
      reliability: { gt: 0.98 },
      numGpus: { eq: 1 },
      gpuName: { eq: "RTX 3090" },
    });
  });

  it("'compute_cap > 610 total_flops > 5 datacenter=True'", () => {
    expect(bodyOf("compute_cap > 610 total_flops > 5 datacenter=True")).toMatchObject({
      compute_cap: { gt: 610 },
      total_flops: { gt: 5 },
      datacenter: { eq: true },
    });
  });

  it("'reliability>0.99 num_gpus=4 geolocation in [TW,SE]'", () => {
    expect(parseOfferQuery("reliability>0.99 num_gpus=4 geolocation in [TW,SE]").filters).toEqual({
      reliability: { gt: 0.99 },
      numGpus: { eq: 4 },
      geolocation: { in: ["TW", "SE"] },
    });
  });

  it(`'reliability>0.99 gpu_name in ["RTX 4090", "RTX 3090"] geolocation notin [CN,VN]'`, () => {
    expect(
      parseOfferQuery('reliability>0.99 gpu_name in ["RTX 4090", "RTX 3090"] geolocation notin [CN,VN]')
        .filters,
    ).toEqual({
      reliability: { gt: 0.99 },
      gpuName: { in: ["RTX 4090", "RTX 3090"] },
      geolocation: { notin: ["CN", "VN"] },
    });
  });

  it("'disk_space>146 duration>24 gpu_ram>10 cuda_vers>=12.1 direct_port_count>=2 driver_version >= 535.86.05'", () => {
    const parsed = parseOfferQuery(
      "disk_space>146 duration>24 gpu_ram>10 cuda_vers>=12.1 direct_port_count>=2 driver_version >= 535.86.05",
    );
    expect(parsed.filters).toEqual({
      diskSpaceBytes: { gt: 146e9 },
      durationSeconds: { gt: 24 * 86_400 }, // days
      gpuRamBytes: { gt: 10 * GiB }, // the card class
      cudaMaxGood: { gte: 12.1 }, // alias cuda_vers
      directPortCount: { gte: 2 },
    });
    expect(parsed.raw).toEqual({ driver_version: { gte: 535_086_005 } });
    expect(bodyOf("disk_space>146 gpu_ram>10")).toMatchObject({
      disk_space: { gt: 146 },
      gpu_ram: { gt: 9523 }, // 10 GiB = 10240 MiB, less the 7 % class tolerance
    });
  });

  it("'reliability > 0.99  num_gpus>=4 verified=False'", () => {
    const body = bodyOf("reliability > 0.99  num_gpus>=4 verified=False");
    expect(body).toMatchObject({ reliability: { gt: 0.99 }, num_gpus: { gte: 4 }, verified: { eq: false } });
  });

  it("'cpu_arch=arm64'", () => {
    expect(parseOfferQuery("cpu_arch=arm64").filters).toEqual({ cpuArch: { eq: "arm64" } });
  });
});

describe("parseOfferQuery units and forms", () => {
  it("reads gpu_ram as the card class, so gpu_ram>=24 admits an RTX 4090 reporting 24564 MiB", () => {
    const body = bodyOf("gpu_ram>=24 num_gpus=2 reliability>0.99");
    expect(body).toMatchObject({ num_gpus: { eq: 2 }, reliability: { gt: 0.99 } });
    const floor = (body.gpu_ram as { gte: number }).gte;
    expect(24564).toBeGreaterThanOrEqual(floor);
    expect(22528).toBeLessThan(floor); // a 22 GiB card is another class
  });

  it("reads cpu_ram as vast-cli sends it: GB x 1000 onto the MiB column", () => {
    expect(parseOfferQuery("cpu_ram>=256").filters).toEqual({ cpuRamBytes: { gte: 256_000 * MiB } });
    expect(bodyOf("cpu_ram>=256").cpu_ram).toEqual({ gte: 256_000 }); // a host reporting 257000 MiB passes
  });

  it("takes word operators, several conditions on one field, aliases and numbers as numbers", () => {
    const body = bodyOf("dph lte 1.5 num_gpus gte 2 num_gpus<=4 inet_down not in [100,200] has_avx=true");
    expect(body).toMatchObject({
      dph_total: { lte: 1.5 },
      num_gpus: { gte: 2, lte: 4 },
      inet_down: { notin: [100, 200] },
      has_avx: { eq: true },
    });
  });

  it("drops a default with the wildcard", () => {
    const body = bodyOf("verified=any rented=* num_gpus=1");
    expect(body).not.toHaveProperty("verified");
    expect(body).not.toHaveProperty("rented");
    expect(body.rentable).toEqual({ eq: true });
  });

  it.each([
    ["gpu_rma>=24", /unknown field "gpu_rma"/],
    ["gpu_ram~24", /unknown operator "~"/],
    ["gpu_ram=>24", /unknown operator "=>"/],
    ["num_gpus like 2", /unknown operator "like"/],
    ["num_gpus=two", /num_gpus needs a number, got "two"/],
    ["verified=maybe", /verified needs true or false/],
    ["num_gpus>any", /wildcard/],
    ["num_gpus=", /no value after/],
    ["=2", /expected a field name/],
    ["driver_version>=535", /driver_version needs X.Y.Z/],
  ])("rejects %j with a clear error", (text, message) => {
    expect(() => parseOfferQuery(text)).toThrow(InvalidInputError);
    expect(() => parseOfferQuery(text)).toThrow(message);
    try {
      parseOfferQuery(text);
    } catch (error) {
      expect((error as InvalidInputError).hint).not.toBe("");
    }
  });
});
