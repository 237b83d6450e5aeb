import { formatBytes, GiB } from "@cuzkit/core";
import { instanceSshEndpoint, type VastInstance, type VastOffer } from "@cuzkit/vast";
import { createTable } from "../../table.js";

/** What the tuner predicts for an offer, shown beside it. */
export interface OfferPrediction {
  /** Whether a safe daemon config fits the offer's RAM and GPUs. */
  fits: boolean;
  /** Modelled steady-state proofs per hour (0 when nothing fits). */
  proofsPerHour: number;
  /** The offer's $/h spread over its proofs, per 1000 proofs; undefined when nothing fits. */
  usdPerThousandProofs: number | undefined;
}

const gib = (bytes: number | undefined) => (bytes === undefined ? "" : (bytes / GiB).toFixed(1));
const price = (usd: number | undefined) => (usd === undefined ? "" : usd.toFixed(3));

/** An offer in one line of words, for the rent prompt: GPUs, VRAM, RAM, threads, $/h and where. */
export function offerSummary(offer: VastOffer): string {
  const threads =
    offer.cpuCoresEffective === undefined ? offer.cpuCores : Math.floor(offer.cpuCoresEffective);
  return (
    `${offer.numGpus}x ${offer.gpuName} (${formatBytes(offer.gpuRamBytes)} each), ${formatBytes(offer.cpuRamBytes)} RAM` +
    `${threads === undefined ? "" : `, ${threads} CPU threads`}, $${price(offer.dphTotal)}/h on-demand` +
    `${offer.minBid === undefined ? "" : ` (min bid $${price(offer.minBid)}/h)`}` +
    `${offer.geolocation ? `, ${offer.geolocation}` : ""}`
  );
}

/** The offers table; with predictions, a "Fits / Proofs/h / $/1k proofs" column group. */
export function offersTable(
  offers: VastOffer[],
  predictions?: readonly OfferPrediction[],
  colour = false,
): string {
  const head = ["ID", "GPU", "N", "VRAM GiB", "RAM GiB", "CPU thr", "$/h", "Reliab.", "Location"];
  if (predictions) head.push("Fits", "Proofs/h", "$/1k proofs");
  const table = createTable(head, { colour });
  offers.forEach((o, index) => {
    const row: (string | number)[] = [
      o.id,
      o.gpuName,
      o.numGpus,
      gib(o.gpuRamBytes),
      gib(o.cpuRamBytes),
      o.cpuCoresEffective === undefined ? (o.cpuCores ?? "") : Math.floor(o.cpuCoresEffective),
      price(o.dphTotal),
      o.reliability === undefined ? "" : `${(o.reliability * 100).toFixed(1)}%`,
      o.geolocation ?? "",
    ];
    const p = predictions?.[index];
    if (p) {
      row.push(
        p.fits ? "yes" : "no",
        p.fits ? Math.round(p.proofsPerHour) : "",
        p.usdPerThousandProofs === undefined ? "" : p.usdPerThousandProofs.toFixed(2),
      );
    }
    table.push(row);
  });
  return table.toString();
}

/** `root@HOST -p PORT`, or "" when the instance has no SSH endpoint. */
export function sshShort(instance: VastInstance): string {
  const ssh = instanceSshEndpoint(instance);
  return ssh === undefined ? "" : `root@${ssh.host} -p ${ssh.port}`;
}

/** The instances table. */
export function instancesTable(instances: VastInstance[], colour = false): string {
  const table = createTable(["ID", "Label", "Status", "GPU", "N", "RAM GiB", "$/h", "SSH"], { colour });
  for (const i of instances) {
    table.push([
      i.id,
      i.label ?? "",
      i.actualStatus ?? "provisioning",
      i.gpuName ?? "",
      i.numGpus ?? "",
      gib(i.cpuRamBytes),
      price(i.dphTotal),
      sshShort(i),
    ]);
  }
  return table.toString();
}

/** One instance as a key/value table. */
export function instanceDetails(i: VastInstance): string {
  const table = createTable(undefined, { colour: false });
  const rows: [string, string | number][] = [
    ["id", i.id],
    ["label", i.label ?? ""],
    ["status", i.actualStatus ?? "provisioning"],
    ["intended", i.intendedStatus ?? ""],
    ["status_msg", i.statusMsg ?? ""],
    ["gpu", `${i.numGpus ?? "?"}x ${i.gpuName ?? "?"} (${gib(i.gpuRamBytes)} GiB each)`],
    ["ram", `${gib(i.cpuRamBytes)} GiB`],
    ["disk", `${i.diskSpaceBytes === undefined ? "" : (i.diskSpaceBytes / 1e9).toFixed(0)} GB`],
    ["price", `$${price(i.dphTotal)}/h${i.isBid ? " (interruptible)" : " (on-demand)"}`],
    ["ssh", sshShort(i)],
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

/** An instance in a few words, for prompts: `7000001 (label x, 2x RTX 4090, running)`. */
export function instanceSummary(i: VastInstance): string {
  const parts = [
    i.label ? `label ${i.label}` : undefined,
    i.gpuName ? `${i.numGpus ?? "?"}x ${i.gpuName}` : undefined,
    i.actualStatus ?? "provisioning",
  ].filter((part) => part !== undefined);
  return `${i.id} (${parts.join(", ")})`;
}
