import { InvalidInputError } from "@cuzkit/core";
import { booleanField, isObject, type JsonObject, numberField, stringField } from "./guards.js";
import { defaultDiskGb } from "./offer-query.js";
import { redactedMarker } from "./redact.js";
import { vastDiskToBytes, vastMemoryToBytes } from "./units.js";

/** `actual_status` values Vast.ai reports; null while provisioning. */
export type VastInstanceStatus =
  | "created"
  | "loading"
  | "running"
  | "stopped"
  | "frozen"
  | "exited"
  | "rebooting"
  | "unknown"
  | "offline";

/** States an instance never leaves for `running`: destroy it and rent another. */
export const terminalFailureStatuses: readonly string[] = ["exited", "unknown", "offline"];

/** A Docker port binding as the API reports it; HostPort is a string. */
export interface PortBinding {
  HostIp?: string | undefined;
  HostPort: string;
}

/** One rented instance, in our units. `raw` is the API record as received. */
export interface VastInstance {
  /** Instance (contract) id. */
  id: number;
  /** The label, if any. */
  label: string | undefined;
  /** Container state; null while provisioning. */
  actualStatus: string | null;
  /** "running" or "stopped": what the owner asked for. */
  intendedStatus: string | undefined;
  /** Contract state. */
  curState: string | undefined;
  /** Progress or error text, such as image-pull progress or a Docker error. */
  statusMsg: string | undefined;
  machineId: number | undefined;
  gpuName: string | undefined;
  numGpus: number | undefined;
  /** VRAM per GPU, bytes. */
  gpuRamBytes: number | undefined;
  /** Host RAM, bytes. */
  cpuRamBytes: number | undefined;
  /** Disk, bytes. */
  diskSpaceBytes: number | undefined;
  /** Price, $/hour. */
  dphTotal: number | undefined;
  /** True for an interruptible (bid) rental. */
  isBid: boolean | undefined;
  /** SSH proxy host and port. */
  sshHost: string | undefined;
  sshPort: number | undefined;
  publicIpaddr: string | undefined;
  /** Docker-style port map: `{"22/tcp": [{HostPort: "40022"}]}`. */
  ports: Record<string, PortBinding[]>;
  imageUuid: string | undefined;
  /** How the container was started (`image_runtype`), such as "ssh_direc ssh_proxy" or "args". */
  imageRuntype: string | undefined;
  /** Epoch seconds. */
  startDate: number | undefined;
  geolocation: string | undefined;
  /** The API record as received. */
  raw: JsonObject;
}

/** Normalises an instance record; undefined when it has no numeric `id`. */
export function normaliseInstance(record: unknown): VastInstance | undefined {
  if (!isObject(record)) return undefined;
  const id = numberField(record, "id");
  if (id === undefined) return undefined;
  const gpuRam = numberField(record, "gpu_ram");
  const cpuRam = numberField(record, "cpu_ram");
  const disk = numberField(record, "disk_space");
  const status = record.actual_status;
  return {
    id,
    label: stringField(record, "label"),
    actualStatus: typeof status === "string" ? status : null,
    intendedStatus: stringField(record, "intended_status"),
    curState: stringField(record, "cur_state"),
    statusMsg: stringField(record, "status_msg"),
    machineId: numberField(record, "machine_id"),
    gpuName: stringField(record, "gpu_name"),
    numGpus: numberField(record, "num_gpus"),
    gpuRamBytes: gpuRam === undefined ? undefined : vastMemoryToBytes(gpuRam),
    cpuRamBytes: cpuRam === undefined ? undefined : vastMemoryToBytes(cpuRam),
    diskSpaceBytes: disk === undefined ? undefined : vastDiskToBytes(disk),
    dphTotal: numberField(record, "dph_total"),
    isBid: booleanField(record, "is_bid"),
    sshHost: stringField(record, "ssh_host"),
    sshPort: numberField(record, "ssh_port"),
    publicIpaddr: stringField(record, "public_ipaddr"),
    ports: normalisePorts(record.ports),
    imageUuid: stringField(record, "image_uuid"),
    imageRuntype: stringField(record, "image_runtype"),
    startDate: numberField(record, "start_date"),
    geolocation: stringField(record, "geolocation"),
    raw: record,
  };
}

/** Where to SSH into an instance. */
export interface SshEndpoint {
  /** `ssh://root@HOST:PORT`. */
  url: string;
  /** `ssh -p PORT root@HOST`. */
  command: string;
  host: string;
  port: number;
  /** "direct": the machine's public IP and its mapped 22/tcp; "proxy": Vast's SSH proxy. */
  kind: "direct" | "proxy";
}

/**
 * The SSH endpoint of an instance, or undefined when it has none (args runtype, or not up yet).
 * As vast-cli's `ssh-url` (vastai/cli/commands/misc.py `_ssh_url`): the direct form when 22/tcp
 * is mapped, else the proxy `ssh_host:ssh_port`, whose port is one higher for a jupyter runtype.
 */
export function instanceSshEndpoint(instance: VastInstance): SshEndpoint | undefined {
  const directPort = Number(instance.ports["22/tcp"]?.[0]?.HostPort);
  let host: string | undefined;
  let port: number | undefined;
  let kind: SshEndpoint["kind"];
  if (instance.publicIpaddr && Number.isInteger(directPort) && directPort > 0) {
    host = instance.publicIpaddr.trim();
    port = directPort;
    kind = "direct";
  } else {
    host = instance.sshHost;
    port =
      instance.sshPort === undefined
        ? undefined
        : instance.sshPort + (instance.imageRuntype?.includes("jupyter") ? 1 : 0);
    kind = "proxy";
  }
  if (!host || port === undefined || !(port > 0)) return undefined;
  return { url: `ssh://root@${host}:${port}`, command: `ssh -p ${port} root@${host}`, host, port, kind };
}

function normalisePorts(value: unknown): Record<string, PortBinding[]> {
  const out: Record<string, PortBinding[]> = {};
  if (!isObject(value)) return out; // OAS claims an int array; the real API sends a Docker map
  for (const [port, bindings] of Object.entries(value)) {
    if (!Array.isArray(bindings)) continue;
    out[port] = bindings.filter(isObject).flatMap((b) => {
      const hostPort = b.HostPort;
      if (typeof hostPort !== "string" && typeof hostPort !== "number") return [];
      const binding: PortBinding = { HostPort: String(hostPort) };
      if (typeof b.HostIp === "string") binding.HostIp = b.HostIp;
      return [binding];
    });
  }
  return out;
}

/** Runtypes the API documents. `args` keeps the image ENTRYPOINT; the others replace it with Vast's init. */
export type VastRuntype =
  | "ssh"
  | "ssh_proxy"
  | "ssh_direct"
  | "jupyter"
  | "jupyter_proxy"
  | "jupyter_direct"
  | "args";

const runtypes: readonly VastRuntype[] = [
  "ssh",
  "ssh_proxy",
  "ssh_direct",
  "jupyter",
  "jupyter_proxy",
  "jupyter_direct",
  "args",
];

/** What to run on a rented offer. */
export interface CreateInstanceOptions {
  /** Docker image, such as "ghcr.io/org/prover:1.2". Required. */
  image: string;
  /**
   * Environment, sent as the API's object form. Keys `-p HOST:CONTAINER[/tcp|/udp]` (value "1")
   * request ports and are validated; `-h` sets the hostname. Default {}.
   */
  env?: Record<string, string> | undefined;
  /** Ports to open, as a shorthand for `-p N:N` env keys: 8080 or "9820/udp". Default none. */
  ports?: readonly (number | string)[] | undefined;
  /** Script run at start (ssh/jupyter) or the entrypoint override (args mode). At most 4048 characters (the API's limit). */
  onstart?: string | undefined;
  /**
   * How the container starts. Default "args" when `args` is given, else "ssh" (as the CLI).
   * Use "args" for an image whose own ENTRYPOINT must run, such as the prover image.
   */
  runtype?: VastRuntype | undefined;
  /** Arguments replacing the image CMD; implies runtype "args". */
  args?: readonly string[] | undefined;
  /** Disk size in GB, fixed for the instance's life. Default 10. */
  diskGb?: number | undefined;
  /** Unique label used to find the instance after an ambiguous failure. Default `cuzkit-<random>`. */
  label?: string | undefined;
  /**
   * A bid in $/hour for the machine: makes the rental interruptible (spot). Without it the
   * rental is ON-DEMAND at the offer's dph_total, even for an offer found with type "bid".
   */
  bidPricePerHour?: number | undefined;
  /** Registry login, such as "-u user -p TOKEN ghcr.io". A secret: never printed by dry runs. */
  imageLogin?: string | undefined;
  /**
   * Search for the offer right before renting and refuse (VastOfferGoneError, nothing rented)
   * when it is no longer rentable. Default true.
   */
  recheckOffer?: boolean | undefined;
  /** Ask Vast.ai to refuse (410, "offer gone") rather than queue when the offer cannot start now. Default: not sent. */
  cancelUnavailable?: boolean | undefined;
}

/** The request a create sends; what `rent --dry-run` prints. */
export interface CreateInstanceRequest {
  method: "PUT";
  path: string;
  offerId: number;
  label: string;
  body: JsonObject;
}

// OAS (vast-ai/docs api-reference/openapi.yaml) caps onstart at 4048 characters; the docs' CLI
// guide says 16 KB. The lower, API-side figure wins: a longer script is refused here, not there.
const maxOnstartChars = 4048;
const maxLabelChars = 1024;

/** A fresh unique label: `cuzkit-` and 10 random base-36 characters. */
export function generateLabel(random: () => number = Math.random): string {
  let suffix = "";
  for (let i = 0; i < 10; i++) suffix += Math.floor(random() * 36).toString(36);
  return `cuzkit-${suffix}`;
}

/**
 * Validates create options and builds the request (`PUT /api/v0/asks/{offerId}/`). Pure: no
 * key, no network; the dry run prints its result with `redactCreateBody`.
 */
export function buildCreateInstanceRequest(
  offerId: number,
  options: CreateInstanceOptions,
  random: () => number = Math.random,
): CreateInstanceRequest {
  if (!Number.isSafeInteger(offerId) || offerId <= 0) {
    throw new InvalidInputError(`invalid offer id ${offerId}`, {
      hint: "give the numeric id of an offer from a search",
    });
  }
  if (typeof options.image !== "string" || options.image.trim() === "") {
    throw new InvalidInputError("an image is required to rent an instance", {
      hint: 'give the Docker image, such as "ghcr.io/org/prover:1.2"',
    });
  }
  const env = buildEnv(options.env ?? {}, options.ports ?? []);
  const label = options.label ?? generateLabel(random);
  if (label.trim() === "" || label.length > maxLabelChars) {
    throw new InvalidInputError(`invalid label "${label.slice(0, 40)}"`, {
      hint: `use 1 to ${maxLabelChars} characters, unique per rental`,
    });
  }
  const diskGb = options.diskGb ?? defaultDiskGb;
  if (!(Number.isFinite(diskGb) && diskGb > 0)) {
    throw new InvalidInputError(`diskGb must be positive, got ${diskGb}`, {
      hint: "give the disk size in GB, such as 200",
    });
  }
  let runtype = options.runtype;
  if (runtype !== undefined && !runtypes.includes(runtype)) {
    throw new InvalidInputError(`unknown runtype "${runtype}"`, {
      hint: `use one of: ${runtypes.join(", ")}`,
    });
  }
  if (options.args !== undefined) {
    if (runtype !== undefined && runtype !== "args") {
      throw new InvalidInputError(`args need runtype "args", not "${runtype}"`, {
        hint: "drop the runtype or the args",
      });
    }
    if (!options.args.every((a) => typeof a === "string")) {
      throw new InvalidInputError("args must be strings", { hint: 'such as ["--config", "/etc/cuzk.toml"]' });
    }
    runtype = "args";
  }
  runtype ??= "ssh";
  if (options.onstart !== undefined && options.onstart.length > maxOnstartChars) {
    throw new InvalidInputError(`onstart is ${options.onstart.length} characters, over ${maxOnstartChars}`, {
      hint: "gzip and base64 the script, or fetch it from a URL in a short onstart",
    });
  }
  const body: JsonObject = {
    client_id: "me",
    image: options.image.trim(),
    env,
    disk: diskGb,
    label,
    runtype,
  };
  if (options.args !== undefined) body.args = [...options.args];
  if (options.onstart !== undefined) body.onstart = options.onstart;
  if (options.bidPricePerHour !== undefined) {
    const price = options.bidPricePerHour;
    if (!(Number.isFinite(price) && price >= 0.001 && price <= 128)) {
      throw new InvalidInputError(`bid price ${price} $/h is out of range`, {
        hint: "bid between 0.001 and 128 $/hour, at or above the offer's min_bid",
      });
    }
    body.price = price;
  }
  if (options.imageLogin !== undefined) body.image_login = options.imageLogin;
  if (options.cancelUnavailable !== undefined) body.cancel_unavail = options.cancelUnavailable;
  return { method: "PUT", path: `/api/v0/asks/${offerId}/`, offerId, label, body };
}

/** The create body with secrets (image_login) replaced, for printing. */
export function redactCreateBody(body: JsonObject): JsonObject {
  return body.image_login === undefined ? { ...body } : { ...body, image_login: redactedMarker };
}

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const portKey = /^-p (\d+):(\d+)(?:\/(tcp|udp))?$/;

function validPortPair(host: number, container: number): boolean {
  // Vast.ai turns "-p N:N" with N >= 70000 into a random identity mapping; others must be real ports.
  if (host >= 70000 || container >= 70000) return host === container;
  return host >= 1 && host <= 65535 && container >= 1 && container <= 65535;
}

function buildEnv(env: Record<string, string>, ports: readonly (number | string)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value !== "string") {
      throw new InvalidInputError(`env ${key} must be a string`, { hint: "quote the value" });
    }
    if (key.startsWith("-")) {
      const match = portKey.exec(key);
      if (match) {
        if (!validPortPair(Number(match[1]), Number(match[2]))) {
          throw new InvalidInputError(`invalid port mapping "${key}"`, {
            hint: "ports are 1..65535 (or N:N with N >= 70000 for a random identity mapping)",
          });
        }
        out[key] = "1";
        continue;
      }
      if (key === "-h") {
        out[key] = value;
        continue;
      }
      throw new InvalidInputError(`invalid docker option "${key}" in env`, {
        hint: 'write ports as "-p 8080:8080" or "-p 9000:9000/udp", the hostname as "-h"',
      });
    }
    if (!envName.test(key)) {
      throw new InvalidInputError(`invalid environment variable name "${key}"`, {
        hint: "use letters, digits and _, not starting with a digit",
      });
    }
    out[key] = value;
  }
  for (const port of ports) {
    const match = /^(\d+)(?:\/(tcp|udp))?$/.exec(String(port).trim());
    const number = Number(match?.[1]);
    if (!match || !validPortPair(number, number)) {
      throw new InvalidInputError(`invalid port "${port}"`, {
        hint: 'give a port such as 8080 or "9000/udp"',
      });
    }
    out[`-p ${number}:${number}${match[2] ? `/${match[2]}` : ""}`] = "1";
  }
  return out;
}
