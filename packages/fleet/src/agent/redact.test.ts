import { describe, expect, it } from "vitest";
import { createLineRedactor, redactionMarker, redactSecrets, secretsFromEnv } from "./redact.js";

const vastKey = "3f9c2a7b1e8d4c6f0a5b9e2d7c1f4a8b3e6d9c2f5a8b1e4d7c0f3a6b9e2d5c8f";
const fleetToken = "tok_Zq8Xv3Lm9Np2Rs5Tu7Wx0Yz4Ab6Cd1Ef";

describe("redactSecrets", () => {
  it("removes the Vast API key wherever it appears, whole and URL-encoded", () => {
    const line = `GET https://console.vast.ai/api/v0/instances/?api_key=${vastKey} failed; key ${vastKey}`;
    const out = redactSecrets(line, [vastKey]);
    expect(out).not.toContain(vastKey.slice(0, 8));
    expect(out).toContain(redactionMarker);
    const odd = "a/b+c=d&e?f_ghijklmnop";
    expect(redactSecrets(`x ${encodeURIComponent(odd)} y`, [odd])).toBe(`x ${redactionMarker} y`);
  });

  it("removes each piece of a key split across two lines or printed with a break in it", () => {
    const [first, second] = [vastKey.slice(0, 27), vastKey.slice(27)];
    expect(redactSecrets(`daemon: key starts ${first}`, [vastKey])).toBe(
      `daemon: key starts ${redactionMarker}`,
    );
    expect(redactSecrets(`${second} and more`, [vastKey])).toBe(`${redactionMarker} and more`);
    // A key wrapped in the middle of one line, and a fleet token cut by a quote.
    const wrapped = redactSecrets(`${vastKey.slice(0, 40)}\\\n${vastKey.slice(40)}`, [vastKey]);
    expect(wrapped).toBe(`${redactionMarker}\\\n${redactionMarker}`);
    const cut = redactSecrets(`"${fleetToken.slice(0, 15)}" + "${fleetToken.slice(15)}"`, [fleetToken]);
    expect(cut).toBe(`"${redactionMarker}" + "${redactionMarker}"`);
  });

  it("removes the fleet and agent tokens given as known secrets", () => {
    const out = redactSecrets(`registering with ${fleetToken} at http://10.0.0.1:7320`, [fleetToken]);
    expect(out).toBe(`registering with ${redactionMarker} at http://10.0.0.1:7320`);
  });

  it("removes the password of a URL and keeps the user and host", () => {
    expect(redactSecrets("connect postgres://curio:hunter2pass@db.internal:5432/yugabyte")).toBe(
      `connect postgres://curio:${redactionMarker}@db.internal:5432/yugabyte`,
    );
    expect(redactSecrets("fetch https://bob:s3cr%40t@params.example/x.tar")).toBe(
      `fetch https://bob:${redactionMarker}@params.example/x.tar`,
    );
  });

  it("removes bearer tokens in any case", () => {
    expect(redactSecrets("Authorization: Bearer abc.def-ghi_123")).not.toContain("abc.def");
    expect(redactSecrets("sent bearer xyz987 upstream")).toBe(`sent bearer ${redactionMarker} upstream`);
  });

  it("removes the values of key=..., key: ... and --token settings", () => {
    const cases: [string, string][] = [
      ["VAST_API_KEY=abcdef123", `VAST_API_KEY=${redactionMarker}`],
      ["api_key: zzz999 rest", `api_key: ${redactionMarker} rest`],
      ['{"password":"pa55word","user":"u"}', `{"password":"${redactionMarker}","user":"u"}`],
      ["url?access_token=qqq&x=1", `url?access_token=${redactionMarker}&x=1`],
      ["secret = 'shh'", `secret = '${redactionMarker}'`],
      ["curio --db-password hunter2 run", `curio --db-password ${redactionMarker} run`],
      ["AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", `AWS_SECRET_ACCESS_KEY=${redactionMarker}`],
    ];
    for (const [line, expected] of cases) expect(redactSecrets(line)).toBe(expected);
  });

  it("leaves ordinary lines alone and is idempotent", () => {
    const plain = "partition 3/10 proved in 41.2 s on gpu 0 (memory 12.0 GiB)";
    expect(redactSecrets(plain, [vastKey, fleetToken])).toBe(plain);
    const once = redactSecrets(`token=${fleetToken} Bearer x postgres://a:b@h/d ${vastKey} --token t`, [
      vastKey,
      fleetToken,
    ]);
    expect(redactSecrets(once, [vastKey, fleetToken])).toBe(once);
  });
});

describe("secretsFromEnv", () => {
  it("takes the fleet's and Vast's variables and any variable named as a secret, long enough", () => {
    const env = {
      CUZKIT_FLEET_TOKEN: fleetToken,
      CONTAINER_API_KEY: vastKey,
      DB_PASSWORD: "correct-horse-battery",
      SHORT_TOKEN: "abc",
      PATH: "/usr/local/bin:/usr/bin:/bin",
      CUZKIT_INSTANCE_ID: "i-0000abcd00",
    };
    expect(secretsFromEnv(env).sort()).toEqual([vastKey, fleetToken, "correct-horse-battery"].sort());
  });

  it("a bound redactor reads its secrets at each call", () => {
    const secrets: string[] = [];
    const redact = createLineRedactor(() => secrets);
    expect(redact(`x ${fleetToken}`)).toBe(`x ${fleetToken}`);
    secrets.push(fleetToken);
    expect(redact(`x ${fleetToken}`)).toBe(`x ${redactionMarker}`);
  });
});
