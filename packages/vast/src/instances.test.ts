import { InvalidInputError, MiB } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import {
  buildCreateInstanceRequest,
  generateLabel,
  normaliseInstance,
  redactCreateBody,
} from "./instances.js";

describe("buildCreateInstanceRequest", () => {
  it("builds the CLI's body with our defaults", () => {
    const request = buildCreateInstanceRequest(1001, { image: "ghcr.io/org/prover:1", label: "bench-1" });
    expect(request).toEqual({
      method: "PUT",
      path: "/api/v0/asks/1001/",
      offerId: 1001,
      label: "bench-1",
      body: {
        client_id: "me",
        image: "ghcr.io/org/prover:1",
        env: {},
        disk: 10,
        label: "bench-1",
        runtype: "ssh",
      },
    });
  });

  it("uses runtype args with args, ports as -p env keys, and a bid as price", () => {
    const { body } = buildCreateInstanceRequest(1, {
      image: "img",
      env: { CUZK_LOG: "info", "-p 8080:8080": "1", "-h": "prover" },
      ports: [9820, "9000/udp"],
      args: ["--config", "/etc/cuzk.toml"],
      onstart: "echo hi",
      diskGb: 200,
      bidPricePerHour: 0.5,
      imageLogin: "-u me -p secret-token ghcr.io",
      cancelUnavailable: true,
    });
    expect(body).toMatchObject({
      env: {
        CUZK_LOG: "info",
        "-p 8080:8080": "1",
        "-h": "prover",
        "-p 9820:9820": "1",
        "-p 9000:9000/udp": "1",
      },
      runtype: "args",
      args: ["--config", "/etc/cuzk.toml"],
      onstart: "echo hi",
      disk: 200,
      price: 0.5,
      image_login: "-u me -p secret-token ghcr.io",
      cancel_unavail: true,
    });
    expect(JSON.stringify(redactCreateBody(body))).not.toContain("secret-token");
  });

  it("sends no price without a bid (an on-demand rental)", () => {
    expect(buildCreateInstanceRequest(1, { image: "img" }).body).not.toHaveProperty("price");
  });

  it("generates a unique cuzkit- label", () => {
    let n = 0;
    const random = () => ((n++ * 7) % 36) / 36;
    expect(generateLabel(random)).toMatch(/^cuzkit-[0-9a-z]{10}$/);
    expect(buildCreateInstanceRequest(1, { image: "img" }).label).not.toBe(
      buildCreateInstanceRequest(1, { image: "img" }).label,
    );
  });

  it.each([
    [0, { image: "img" }, /offer id/],
    [1, { image: " " }, /image is required/],
    [1, { image: "img", env: { "-p 80:65536": "1" } }, /invalid port mapping/],
    [1, { image: "img", env: { "-p 80:70001": "1" } }, /invalid port mapping/],
    [1, { image: "img", env: { "-p 80:80/sctp": "1" } }, /invalid docker option/],
    [1, { image: "img", env: { "-v /:/host": "1" } }, /invalid docker option/],
    [1, { image: "img", env: { "1BAD": "x" } }, /environment variable name/],
    [1, { image: "img", ports: [0] }, /invalid port/],
    [1, { image: "img", ports: ["80/sctp"] }, /invalid port/],
    [1, { image: "img", runtype: "ssh", args: ["x"] }, /runtype "args"/],
    [1, { image: "img", runtype: "vnc" }, /unknown runtype/],
    [1, { image: "img", bidPricePerHour: 0 }, /out of range/],
    [1, { image: "img", diskGb: 0 }, /diskGb/],
    [1, { image: "img", label: "" }, /invalid label/],
    [1, { image: "img", onstart: "x".repeat(4049) }, /onstart is 4049 characters, over 4048/],
  ])("rejects bad input %#", (offerId, options, message) => {
    expect(() => buildCreateInstanceRequest(offerId, options as never)).toThrow(InvalidInputError);
    expect(() => buildCreateInstanceRequest(offerId, options as never)).toThrow(message);
  });

  it("accepts an onstart of exactly the API's 4048 characters", () => {
    expect(
      buildCreateInstanceRequest(1, { image: "img", onstart: "x".repeat(4048) }).body.onstart,
    ).toHaveLength(4048);
  });

  it("accepts Vast's random identity mapping for ports above 70000", () => {
    expect(buildCreateInstanceRequest(1, { image: "img", ports: [70000] }).body.env).toEqual({
      "-p 70000:70000": "1",
    });
  });
});

describe("normaliseInstance", () => {
  it("normalises units and the Docker port map", () => {
    const instance = normaliseInstance({
      id: 5,
      label: null,
      actual_status: null,
      gpu_ram: 24564,
      cpu_ram: 125000,
      disk_space: 50,
      ports: { "22/tcp": [{ HostIp: "0.0.0.0", HostPort: "40022" }], "8080/tcp": [{ HostPort: 41080 }] },
    })!;
    expect(instance).toMatchObject({
      id: 5,
      label: undefined,
      actualStatus: null,
      gpuRamBytes: 24_564 * MiB,
      cpuRamBytes: 125_000 * MiB,
      diskSpaceBytes: 50_000_000_000,
      ports: { "22/tcp": [{ HostIp: "0.0.0.0", HostPort: "40022" }], "8080/tcp": [{ HostPort: "41080" }] },
    });
  });

  it("tolerates the OAS int-array ports and rejects a record without id", () => {
    expect(normaliseInstance({ id: 1, ports: [22, 8080] })!.ports).toEqual({});
    expect(normaliseInstance({ label: "x" })).toBeUndefined();
  });
});
