import { homedir } from "node:os";
import { createInterface } from "node:readline/promises";
import { CuzkitError, createConsoleLogger, GiB, InvalidInputError, parseByteSize } from "@cuzkit/core";
import {
  buildCreateInstanceRequest,
  type CreateInstanceOptions,
  createVastClient,
  type OfferField,
  type OfferFilters,
  type OfferQuery,
  type OfferType,
  offerFields,
  redactCreateBody,
  type VastClient,
  type VastClientOptions,
  type VastInstance,
  VastNotFoundError,
  type VastOffer,
  type VastRuntype,
} from "@cuzkit/vast";
import Table from "cli-table3";
import { Command, Option } from "commander";
import { type CliIO, CommandExit } from "../io.js";

/** What `createVastCommand` can be given besides the IO; all optional, for tests and embedding. */
export interface VastCommandDeps {
  /** Asks a yes/no question. Default: a prompt on stdin when it is a terminal; otherwise costly commands refuse without --yes. */
  confirm?: (question: string) => Promise<boolean>;
  /** Whether stdin is a terminal. Default `process.stdin.isTTY`. */
  stdinIsTTY?: boolean;
  /** Extra client options (fetch, clock, sleep, retry, rateLimit). The key is never taken from here by the CLI itself. */
  clientOptions?: Partial<VastClientOptions>;
}

const apiKeyNote =
  "The API key comes from VAST_API_KEY or the Vast CLI's key file ($XDG_CONFIG_HOME/vastai/vast_api_key, " +
  "~/.config/vastai/vast_api_key, ~/.vast_api_key). There is no --api-key flag: keys on command lines leak into shell history.";

/**
 * `cuzkit vast offers|rent|instances|show|logs|destroy|label`: search, rent, inspect and
 * destroy Vast.ai machines. Tables by default, `--json` for scripts. `rent` and `destroy`
 * ask for confirmation unless `--yes`; without a terminal they refuse instead of hanging.
 */
export function createVastCommand(io: CliIO, deps: VastCommandDeps = {}): Command {
  const vast = new Command("vast")
    .description("rent, inspect and destroy Vast.ai GPU machines")
    .addHelpText("after", `\n${apiKeyNote}`)
    .option("--url <url>", "Vast.ai API base URL (default: VAST_URL, else https://console.vast.ai)")
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  const clientFor = (command: Command, verbose = false): VastClient => {
    const url = command.optsWithGlobals<{ url?: string }>().url;
    return createVastClient({
      env: io.env,
      homeDir: io.env.HOME ?? homedir(),
      ...(url === undefined ? {} : { baseUrl: url }),
      ...(verbose ? { logger: createConsoleLogger("debug", (line) => io.stderr.write(`${line}\n`)) } : {}),
      ...deps.clientOptions,
    });
  };
  const print = (text: string) => io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  const printJson = (value: unknown) => print(JSON.stringify(value, null, 2));

  async function confirmOrRefuse(question: string, yes: boolean | undefined, what: string): Promise<void> {
    if (yes) return;
    let ok: boolean;
    if (deps.confirm) ok = await deps.confirm(question);
    else if (!(deps.stdinIsTTY ?? process.stdin.isTTY === true)) {
      throw new CuzkitError(
        "CONFIRMATION_REQUIRED",
        `refusing to ${what} without confirmation: stdin is not a terminal`,
        {
          hint: "pass --yes to confirm non-interactively",
        },
      );
    } else ok = await promptYesNo(question, io);
    if (!ok) {
      io.stderr.write("cancelled\n");
      throw new CommandExit(1);
    }
  }

  vast
    .command("offers")
    .description("search rentable offers (verified, rentable, not rented by default)")
    .option("--gpu <names>", 'GPU model, or several comma-separated ("RTX 4090,RTX 3090")')
    .option("--num-gpus <n>", "exact number of GPUs")
    .option("--min-ram <size>", 'minimum host RAM, such as "256GiB"')
    .option("--min-gpu-ram <size>", 'minimum VRAM per GPU, such as "24GiB"')
    .option("--min-cpus <n>", "minimum CPU threads the offer gets (cpu_cores_effective)")
    .option("--max-price <usd>", "maximum total price, $/hour")
    .option("--min-reliability <fraction>", "minimum reliability, 0..1, such as 0.98")
    .option("--min-cuda <version>", "minimum CUDA version the driver supports, such as 12.4")
    .addOption(
      new Option("--type <type>", "rental type")
        .choices(["on-demand", "bid", "reserved"])
        .default("on-demand"),
    )
    .option("--disk <gb>", "disk you will rent, in GB (prices include it)", "10")
    .option("--include-unverified", "also list unverified machines")
    .option("--limit <n>", "most offers to show", "20")
    .option(
      "--order <fields>",
      'sort keys, comma-separated, each FIELD[:asc|desc] ("dph_total", "reliability:desc")',
      "score:desc",
    )
    .option("--json", "print JSON instead of a table")
    .action(async (opts: OffersFlags, command: Command) => {
      const offers = await clientFor(command).searchOffers(offerQueryFromFlags(opts));
      if (opts.json) printJson(offers);
      else print(offers.length === 0 ? "no offers match" : offersTable(offers));
    });

  vast
    .command("rent")
    .description("rent an offer and start an image on it (asks first unless --yes)")
    .argument("<offerId>", "offer id from `cuzkit vast offers`")
    .requiredOption("--image <image>", "Docker image to run")
    .option("--env <KEY=VALUE>", "environment variable (repeatable)", collectValues, [] as string[])
    .option(
      "--port <port>",
      'port to open, such as 9820 or "9000/udp" (repeatable)',
      collectValues,
      [] as string[],
    )
    .option("--onstart <script>", "script run at start (entrypoint override in args mode)")
    .addOption(
      new Option(
        "--runtype <runtype>",
        "how the container starts (default: args with --args, else ssh)",
      ).choices(["ssh", "ssh_proxy", "ssh_direct", "jupyter", "jupyter_proxy", "jupyter_direct", "args"]),
    )
    .option(
      "--args <args...>",
      "arguments replacing the image CMD; keeps the image ENTRYPOINT (put this flag last)",
    )
    .option("--disk <gb>", "disk size in GB, fixed for the instance's life", "10")
    .option("--label <label>", "unique label (default: cuzkit-<random>)")
    .option("--bid <usd>", "bid in $/hour: an interruptible rental (without it you rent on-demand)")
    .option(
      "--image-login-env <var>",
      "name of an environment variable holding the registry login (-u USER -p TOKEN HOST)",
    )
    .option("--cancel-unavailable", "fail instead of queueing when the offer cannot start now")
    .option("--dry-run", "print the request (without secrets) and rent nothing")
    .option("--wait", "wait until the instance is running")
    .option("--wait-minutes <minutes>", "how long --wait waits", "30")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .action(async (offerIdText: string, opts: RentFlags, command: Command) => {
      const offerId = positiveInteger(offerIdText, "offer id");
      const create = createOptionsFromFlags(opts, io.env);
      const request = buildCreateInstanceRequest(offerId, create);
      create.label = request.label; // the dry run, the prompt and the create use the same label
      if (opts.dryRun) {
        const url = `${command.optsWithGlobals<{ url?: string }>().url ?? io.env.VAST_URL ?? "https://console.vast.ai"}`;
        printJson({
          method: request.method,
          url: `${url.replace(/\/+$/, "")}${request.path}`,
          body: redactCreateBody(request.body),
        });
        return;
      }
      const mode =
        create.bidPricePerHour === undefined
          ? "on-demand"
          : `interruptible, bid $${create.bidPricePerHour}/h`;
      await confirmOrRefuse(
        `Rent offer ${offerId} (${mode}) running ${create.image} with ${request.body.disk} GB disk, label ${request.label}? Billing starts now. [y/N] `,
        opts.yes,
        "rent",
      );
      const client = clientFor(command);
      const created = await client.createInstance(offerId, create);
      const summary = {
        instanceId: created.instanceId,
        label: created.label,
        offerId: created.offerId,
        interruptible: created.interruptible,
        recoveredByLabel: created.recoveredByLabel,
      };
      let instance: VastInstance | undefined;
      if (opts.wait) {
        io.stderr.write(`rented instance ${created.instanceId}; waiting for it to run\n`);
        let last = "";
        instance = await client.waitForStatus(created.instanceId, "running", {
          timeoutMs: positiveNumber(opts.waitMinutes, "--wait-minutes") * 60_000,
          onPoll: (polled) => {
            const state = `${polled.actualStatus ?? "provisioning"}${polled.statusMsg ? ` (${polled.statusMsg})` : ""}`;
            if (state !== last) io.stderr.write(`  ${state}\n`);
            last = state;
          },
        });
      }
      if (opts.json) printJson(instance === undefined ? summary : { ...summary, instance });
      else {
        print(
          `rented instance ${created.instanceId} (label ${created.label}, ${created.interruptible ? "interruptible" : "on-demand"})` +
            (created.recoveredByLabel ? "; found by label after an unclear answer" : ""),
        );
        if (instance) print(instancesTable([instance]));
      }
    });

  vast
    .command("instances")
    .description("list your instances")
    .option("--label <label>", "only instances with this label")
    .option("--json", "print JSON instead of a table")
    .action(async (opts: { label?: string; json?: boolean }, command: Command) => {
      const instances: VastInstance[] = [];
      for await (const instance of clientFor(command).listInstances(
        opts.label === undefined ? {} : { label: opts.label },
      )) {
        instances.push(instance);
      }
      if (opts.json) printJson(instances);
      else print(instances.length === 0 ? "no instances" : instancesTable(instances));
    });

  vast
    .command("show")
    .description("show one instance")
    .argument("<id>", "instance id")
    .option("--json", "print JSON")
    .action(async (idText: string, opts: { json?: boolean }, command: Command) => {
      const id = positiveInteger(idText, "instance id");
      const instance = await clientFor(command).showInstance(id);
      if (instance === null) {
        throw new VastNotFoundError(`instance ${id} not found or no longer exists`, {
          endpoint: `GET /api/v0/instances/${id}/`,
        });
      }
      if (opts.json) printJson(instance);
      else print(instanceDetails(instance));
    });

  vast
    .command("logs")
    .description("print an instance's logs")
    .argument("<id>", "instance id")
    .option("--tail <lines>", "last lines", "1000")
    .option("--filter <pattern>", "grep pattern applied by the server")
    .option("--daemon", "Vast's daemon logs instead of the container's")
    .option("--timeout <seconds>", "how long to wait for the logs to be ready", "60")
    .action(async (idText: string, opts: LogsFlags, command: Command) => {
      const text = await clientFor(command).getLogs(positiveInteger(idText, "instance id"), {
        tail: positiveInteger(opts.tail, "--tail"),
        pollTimeoutMs: positiveNumber(opts.timeout, "--timeout") * 1000,
        ...(opts.filter === undefined ? {} : { filter: opts.filter }),
        ...(opts.daemon ? { daemonLogs: true } : {}),
      });
      io.stdout.write(text);
    });

  vast
    .command("destroy")
    .description("destroy instances, ending all billing and deleting their disks (asks first unless --yes)")
    .argument("<ids...>", "instance ids")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .action(async (idTexts: string[], opts: { yes?: boolean; json?: boolean }, command: Command) => {
      const ids = idTexts.map((text) => positiveInteger(text, "instance id"));
      await confirmOrRefuse(
        `Destroy instance${ids.length > 1 ? "s" : ""} ${ids.join(", ")}? Their disks are deleted. [y/N] `,
        opts.yes,
        "destroy",
      );
      const client = clientFor(command);
      const results: { instanceId: number; alreadyGone: boolean }[] = [];
      for (const id of ids) results.push({ instanceId: id, ...(await client.destroyInstance(id)) });
      if (opts.json) printJson(results);
      else {
        for (const r of results)
          print(
            r.alreadyGone
              ? `instance ${r.instanceId} was already gone`
              : `destroyed instance ${r.instanceId}`,
          );
      }
    });

  vast
    .command("label")
    .description("set an instance's label")
    .argument("<id>", "instance id")
    .argument("<label>", "new label")
    .action(async (idText: string, label: string, _opts: unknown, command: Command) => {
      const id = positiveInteger(idText, "instance id");
      await clientFor(command).labelInstance(id, label);
      print(`labelled instance ${id} "${label}"`);
    });

  return vast;
}

interface OffersFlags {
  gpu?: string;
  numGpus?: string;
  minRam?: string;
  minGpuRam?: string;
  minCpus?: string;
  maxPrice?: string;
  minReliability?: string;
  minCuda?: string;
  type: string;
  disk: string;
  includeUnverified?: boolean;
  limit: string;
  order: string;
  json?: boolean;
}

interface RentFlags {
  image: string;
  env: string[];
  port: string[];
  onstart?: string;
  runtype?: string;
  args?: string[];
  disk: string;
  label?: string;
  bid?: string;
  imageLoginEnv?: string;
  cancelUnavailable?: boolean;
  dryRun?: boolean;
  wait?: boolean;
  waitMinutes: string;
  yes?: boolean;
  json?: boolean;
}

interface LogsFlags {
  tail: string;
  filter?: string;
  daemon?: boolean;
  timeout: string;
}

function collectValues(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInteger(text: string, what: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidInputError(
      `${what} must be a whole number >= 1, got "${text}"`,
      `such as ${what === "--tail" ? "200" : "1001"}`,
    );
  }
  return value;
}

function positiveNumber(text: string, what: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidInputError(`${what} must be a positive number, got "${text}"`, "such as 1.5");
  }
  return value;
}

/** Maps `--order dph_total:asc,reliability` (API or our field names) to the query's order. */
function parseOrder(text: string): [OfferField, "asc" | "desc"][] {
  const byApiName = new Map<string, OfferField>(
    Object.entries(offerFields).map(([name, field]) => [field.api, name as OfferField]),
  );
  return text.split(",").map((part) => {
    const [rawName = "", rawDirection = "asc"] = part.trim().split(":");
    const name = (rawName in offerFields ? rawName : byApiName.get(rawName)) as OfferField | undefined;
    const direction = rawDirection.toLowerCase();
    if (name === undefined || (direction !== "asc" && direction !== "desc")) {
      throw new InvalidInputError(
        `cannot sort by "${part}"`,
        'write FIELD[:asc|desc] with an offer column, such as "dph_total" or "reliability:desc"',
      );
    }
    return [name, direction];
  });
}

function offerQueryFromFlags(opts: OffersFlags): OfferQuery {
  const filters: OfferFilters = {};
  if (opts.gpu !== undefined) {
    const names = opts.gpu
      .split(",")
      .map((n) => n.trim())
      .filter((n) => n !== "");
    filters.gpuName = names.length === 1 ? names[0]! : { in: names };
  }
  if (opts.numGpus !== undefined) filters.numGpus = positiveInteger(opts.numGpus, "--num-gpus");
  if (opts.minRam !== undefined) filters.cpuRamBytes = { gte: parseByteSize(opts.minRam) };
  if (opts.minGpuRam !== undefined) filters.gpuRamBytes = { gte: parseByteSize(opts.minGpuRam) };
  if (opts.minCpus !== undefined)
    filters.cpuCoresEffective = { gte: positiveNumber(opts.minCpus, "--min-cpus") };
  if (opts.maxPrice !== undefined) filters.dphTotal = { lte: positiveNumber(opts.maxPrice, "--max-price") };
  if (opts.minReliability !== undefined) {
    const value = Number(opts.minReliability);
    if (!(value >= 0 && value <= 1)) {
      throw new InvalidInputError(
        `--min-reliability must be within 0..1, got "${opts.minReliability}"`,
        "such as 0.98",
      );
    }
    filters.reliability = { gte: value };
  }
  if (opts.minCuda !== undefined) filters.cudaMaxGood = { gte: positiveNumber(opts.minCuda, "--min-cuda") };
  return {
    filters,
    order: parseOrder(opts.order),
    limit: positiveInteger(opts.limit, "--limit"),
    type: opts.type as OfferType,
    allocatedStorageGb: positiveNumber(opts.disk, "--disk"),
    ...(opts.includeUnverified ? { defaults: { verified: "any" as const } } : {}),
  };
}

function createOptionsFromFlags(
  opts: RentFlags,
  env: Record<string, string | undefined>,
): CreateInstanceOptions {
  const envVars: Record<string, string> = {};
  for (const pair of opts.env) {
    const eq = pair.indexOf("=");
    if (eq <= 0)
      throw new InvalidInputError(`--env "${pair}" is not KEY=VALUE`, "such as --env CUZK_LOG=info");
    envVars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const create: CreateInstanceOptions = {
    image: opts.image,
    env: envVars,
    ports: opts.port,
    diskGb: positiveNumber(opts.disk, "--disk"),
  };
  if (opts.onstart !== undefined) create.onstart = opts.onstart;
  if (opts.runtype !== undefined) create.runtype = opts.runtype as VastRuntype;
  if (opts.args !== undefined) create.args = opts.args;
  if (opts.label !== undefined) create.label = opts.label;
  if (opts.bid !== undefined) create.bidPricePerHour = positiveNumber(opts.bid, "--bid");
  if (opts.cancelUnavailable) create.cancelUnavailable = true;
  if (opts.imageLoginEnv !== undefined) {
    const login = env[opts.imageLoginEnv];
    if (!login) {
      throw new InvalidInputError(
        `environment variable ${opts.imageLoginEnv} is not set`,
        'export it, such as "-u USER -p TOKEN ghcr.io"',
      );
    }
    create.imageLogin = login;
  }
  return create;
}

const gib = (bytes: number | undefined) => (bytes === undefined ? "" : (bytes / GiB).toFixed(0));
const price = (usd: number | undefined) => (usd === undefined ? "" : usd.toFixed(3));

function offersTable(offers: VastOffer[]): string {
  const table = new Table({
    head: ["ID", "GPU", "N", "VRAM GiB", "RAM GiB", "CPU thr", "$/h", "Reliab.", "Location"],
    style: { head: [], border: [], compact: true },
    colAligns: ["right", "left", "right", "right", "right", "right", "right", "right", "left"],
  });
  for (const o of offers) {
    table.push([
      o.id,
      o.gpuName,
      o.numGpus,
      gib(o.gpuRamBytes),
      gib(o.cpuRamBytes),
      o.cpuCoresEffective === undefined ? (o.cpuCores ?? "") : Math.floor(o.cpuCoresEffective),
      price(o.dphTotal),
      o.reliability === undefined ? "" : `${(o.reliability * 100).toFixed(1)}%`,
      o.geolocation ?? "",
    ]);
  }
  return table.toString();
}

function sshOf(instance: VastInstance): string {
  const direct = instance.ports["22/tcp"]?.[0]?.HostPort;
  if (instance.publicIpaddr && direct) return `root@${instance.publicIpaddr} -p ${direct}`;
  if (instance.sshHost && instance.sshPort) return `root@${instance.sshHost} -p ${instance.sshPort}`;
  return "";
}

function instancesTable(instances: VastInstance[]): string {
  const table = new Table({
    head: ["ID", "Label", "Status", "GPU", "N", "RAM GiB", "$/h", "SSH"],
    style: { head: [], border: [], compact: true },
  });
  for (const i of instances) {
    table.push([
      i.id,
      i.label ?? "",
      i.actualStatus ?? "provisioning",
      i.gpuName ?? "",
      i.numGpus ?? "",
      gib(i.cpuRamBytes),
      price(i.dphTotal),
      sshOf(i),
    ]);
  }
  return table.toString();
}

function instanceDetails(i: VastInstance): string {
  const table = new Table({ style: { head: [], border: [], compact: true } });
  const rows: [string, string | number][] = [
    ["id", i.id],
    ["label", i.label ?? ""],
    ["status", i.actualStatus ?? "provisioning"],
    ["intended", i.intendedStatus ?? ""],
    ["status_msg", i.statusMsg ?? ""],
    ["gpu", `${i.numGpus ?? "?"}x ${i.gpuName ?? "?"} (${gib(i.gpuRamBytes)} GiB each)`],
    ["ram", `${gib(i.cpuRamBytes)} GiB`],
    ["disk", `${i.diskSpaceBytes === undefined ? "" : (i.diskSpaceBytes / 1e9).toFixed(0)} GB`],
    ["price", `$${price(i.dphTotal)}/h${i.isBid ? " (interruptible)" : ""}`],
    ["ssh", sshOf(i)],
    [
      "ports",
      Object.entries(i.ports)
        .map(([p, b]) => `${p}->${b.map((x) => x.HostPort).join(",")}`)
        .join(" "),
    ],
    ["image", i.imageUuid ?? ""],
  ];
  for (const [key, value] of rows) table.push({ [key]: value });
  return table.toString();
}

async function promptYesNo(question: string, io: CliIO): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: io.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
