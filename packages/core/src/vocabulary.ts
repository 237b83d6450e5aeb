// The daemon's vocabulary: proof kinds, circuits, sector sizes, registered proofs, partitions.
// Source for every value: docs/daemon-facts.md sections 1 and 6.

/** The four proof kinds the daemon proves, by the short names cuzk-bench uses. */
export const proofKinds = ["porep", "snap", "wpost", "winning"] as const;
/** A proof kind: PoRep C2, SnapDeals update, WindowPoSt partition, WinningPoSt. */
export type ProofKind = (typeof proofKinds)[number];

/** Proto enum value (cuzk.v1.ProofKind) for each kind. */
export const proofKindWireValue: Record<ProofKind, number> = {
  porep: 1,
  snap: 2,
  wpost: 3,
  winning: 4,
};

/** Human names of the kinds. */
export const proofKindLabel: Record<ProofKind, string> = {
  porep: "PoRep C2",
  snap: "SnapDeals update",
  wpost: "WindowPoSt",
  winning: "WinningPoSt",
};

/** Label values the daemon uses for `proof_kind` in its Prometheus metrics. */
export const proofKindMetricLabel: Record<ProofKind, string> = {
  porep: "porep_c2",
  snap: "snap_update",
  wpost: "window_post",
  winning: "winning_post",
};

/** Strings the daemon puts in GPUStatus.current_proof_kind and the HTTP /status pipelines. */
export const proofKindStatusName: Record<ProofKind, string> = {
  porep: "porep-c2",
  snap: "snap-update",
  wpost: "window-post",
  winning: "winning-post",
};

const kindAliases: Record<string, ProofKind> = {
  porep: "porep",
  "porep-c2": "porep",
  "seal-commit": "porep",
  snap: "snap",
  "snap-deals": "snap",
  update: "snap",
  wpost: "wpost",
  "window-post": "wpost",
  windowpost: "wpost",
  winning: "winning",
  "winning-post": "winning",
  winningpost: "winning",
};

/** Parses a proof kind as cuzk-bench accepts it (`porep`, `porep-c2`, `window-post`, ...); undefined if unknown. */
export function parseProofKind(text: string): ProofKind | undefined {
  return kindAliases[text.trim().toLowerCase()];
}

/** Maps a proto enum value back to a kind; undefined for 0 or unknown values. */
export function proofKindFromWire(value: number): ProofKind | undefined {
  return proofKinds.find((kind) => proofKindWireValue[kind] === value);
}

/** Sector sizes in bytes. The daemon's pipeline mode supports 32 GiB only. */
export const sectorSizeBytes = {
  "32GiB": 34_359_738_368,
  "64GiB": 68_719_476_736,
} as const;
/** A sector size name. */
export type SectorSizeName = keyof typeof sectorSizeBytes;

/** Circuit ids PreloadSRS accepts. */
export const circuitIds = [
  "porep-32g",
  "porep-64g",
  "wpost-32g",
  "winning-32g",
  "snap-32g",
  "snap-64g",
] as const;
/** A circuit id. */
export type CircuitId = (typeof circuitIds)[number];

/** True when `text` is a circuit id the daemon knows. */
export function isCircuitId(text: string): text is CircuitId {
  return (circuitIds as readonly string[]).includes(text);
}

/** The circuit (and so the parameter file) a 32 GiB proof of each kind uses. */
export const circuitForKind: Record<ProofKind, CircuitId> = {
  porep: "porep-32g",
  snap: "snap-32g",
  wpost: "wpost-32g",
  winning: "winning-32g",
};

/** Registered proof numbers Curio sends for 32 GiB sectors (go-state-types abi). */
export const registeredProof32GiB: Record<ProofKind, number> = {
  /** RegisteredSealProof StackedDrg32GiBV1_1; cuzk reads the value inside the C1 JSON instead. */
  porep: 8,
  /** RegisteredUpdateProof 32 GiB. */
  snap: 3,
  /** RegisteredPoStProof Window V1_1 32 GiB (mapped to proofs-api V1_2 by cuzk). */
  wpost: 13,
  /** RegisteredPoStProof Winning V1 32 GiB. */
  winning: 3,
};

/** Registered proof numbers for 64 GiB sectors (only the monolithic daemon mode proves these). */
export const registeredProof64GiB: Record<ProofKind, number> = {
  porep: 9,
  snap: 4,
  wpost: 14,
  winning: 4,
};

/** Partitions per proof for a 32 GiB sector: PoRep 10, SnapDeals 16, one per PoSt request. */
export const partitionsPerProof: Record<ProofKind, number> = {
  porep: 10,
  snap: 16,
  wpost: 1,
  winning: 1,
};

/** Bytes of one Groth16 partition proof (2 x G1 + 1 x G2, compressed). */
export const grothProofBytes = 192;

/** Size of a complete proof of each kind: 192 bytes per partition. */
export const proofBytes: Record<ProofKind, number> = {
  porep: partitionsPerProof.porep * grothProofBytes,
  snap: partitionsPerProof.snap * grothProofBytes,
  wpost: grothProofBytes,
  winning: grothProofBytes,
};

/** Priorities Curio uses per kind (proto cuzk.v1.Priority values). */
export const curioPriority: Record<ProofKind, number> = {
  porep: 2,
  snap: 2,
  wpost: 3,
  winning: 4,
};

/** The daemon caps every gRPC message at 128 MiB in each direction. */
export const daemonMaxMessageBytes = 128 * 1024 * 1024;

/** Conventional ports and addresses of the daemon. */
export const daemonDefaults = {
  /** The daemon's default listen address. */
  listen: "unix:///run/curio/cuzk.sock",
  /** The conventional TCP port (cuzk-bench's default address is 127.0.0.1:9820). */
  tcpPort: 9820,
  /** The example HTTP status port. */
  statusPort: 9821,
} as const;
