// @cuzkit/fleet: rents GPU machines on Vast.ai, lets each vet itself with the agent (parameters,
// tuning, a benchmark), and keeps only those whose measured proofs/hour clears the minimum.
// The agent that runs on each machine is its own entry, @cuzkit/fleet/agent; the demos are
// @cuzkit/fleet/demo, the test kits @cuzkit/fleet/testing.
export type { AlertKind, FleetAlert } from "./alerts/alert.js";
export {
  checkAlertWebhookUrl,
  type FleetAlerts,
  type FleetAlertsOptions,
  startFleetAlerts,
} from "./alerts/fleet-alerts.js";
export {
  type CurioBacklog,
  type CurioBacklogSource,
  type CurioBacklogSourceOptions,
  curioBacklogSql,
  openCurioBacklogSource,
} from "./curio/backlog-source.js";
export type { CurioLinkOptions } from "./curio/curio-link.js";
export { type CurioRate, curioRatesText } from "./curio/curio-rate.js";
export type { DrainOutcome } from "./curio/drain.js";
export {
  type CurioMachine,
  type CurioProduction,
  type CurioProofTaskType,
  type HarmonySource,
  type HarmonySourceOptions,
  openHarmonySource,
} from "./curio/harmony-source.js";
export { curioIdentityIssues } from "./curio/identity-events.js";
export {
  type CurioIdentityConflict,
  type CurioInstance,
  type CurioMapping,
  curioNodeNameOf,
} from "./curio/machine-map.js";
export { latestCurioRates } from "./curio/production-sync.js";
export {
  type DeadlineInputs,
  type DeadlinePhase,
  type DeadlinePolicy,
  defaultDeadlineFloorsMs,
  type PhaseDeadlinesMs,
} from "./deadlines.js";
export type { BenchVerdict } from "./decision.js";
export { agentDefaults, backlogDefaults, fleetDefaults, logTailDefaults } from "./defaults.js";
export type { BudgetBound } from "./economics/budget-bound.js";
export type { ClassCalibration, RateSample } from "./economics/calibration.js";
export type { ClassHardware } from "./economics/hardware-class.js";
export {
  defaultExclusionPolicy,
  type EvidenceKind,
  type ExclusionPolicy,
  type MachineEvidenceRecord,
  type MachineExclusion,
} from "./economics/machine-evidence.js";
export type {
  EstimateSource,
  ExcludedCandidate,
  MachineMeasurements,
  RankCandidate,
  RankedCandidate,
  RankingKnowledge,
  RankingOptions,
} from "./economics/ranking.js";
export type { FleetDecision, FleetMember, FleetPlanInput, FleetTarget } from "./economics/run-planner.js";
export {
  FleetBudgetError,
  FleetConfigError,
  FleetCurioDbError,
  FleetCurioNodeError,
  FleetError,
  type FleetErrorCode,
  type FleetErrorOptions,
  FleetInstanceNotFoundError,
  FleetInstanceNotLiveError,
  FleetLeaseHeldError,
  FleetLeaseLostError,
  FleetLogTailTooLargeError,
  FleetManagerUrlError,
  FleetOfferRefusedError,
  FleetStoreError,
  type FleetSubclassOptions,
  FleetTransitionError,
  fleetErrorCodes,
  type LeaseHolding,
} from "./errors.js";
export {
  type BenchmarkClaimCheck,
  type BenchmarkClaimInput,
  type ClaimOutcome,
  checkBenchmarkClaim,
  defaultSuspectFactor,
  timedProofRecords,
} from "./evidence/benchmark-claim.js";
export {
  type CountedRate,
  countedRate,
  type InstanceRateEvidence,
  implausibleProduction,
  type ProductionPolicy,
  type ProductionRate,
  productionRate,
  rateEvidence,
  readCountedRate,
  reviewProduction,
} from "./evidence/counted-rate.js";
export { type FleetFailureClass, fleetFailureClasses } from "./failure-class.js";
export {
  type InstanceState,
  instanceStates,
  isFinalState,
  timedStates,
  type VettingState,
} from "./lifecycle.js";
export {
  type BacklogFollower,
  type BacklogStep,
  backlogEventType,
  createBacklogFollower,
  type FollowBacklogOptions,
  followerOf,
} from "./manager/backlog-follower.js";
export {
  type BacklogDecision,
  type BacklogFigures,
  type BacklogObservation,
  type BacklogPolicy,
  type BacklogPolicyOptions,
  type BacklogState,
  decideBacklogTarget,
  resolveBacklogPolicy,
} from "./manager/backlog-target.js";
export { type FleetConfig, type ResolvedFleetConfig, resolveFleetConfig } from "./manager/config.js";
export type { Checkpoint, FleetVast } from "./manager/context.js";
export type { DeployOptions } from "./manager/deploy.js";
export {
  createFleetManager,
  type FleetManager,
  type FleetManagerOptions,
  type LoopOptions,
  type LoopState,
} from "./manager/fleet-manager.js";
export {
  checkFleetTarget,
  type FleetRunLoopOptions,
  type FleetRunOptions,
  type FleetRunStep,
  fleetMembers,
  runFleetStep,
  startFleetRun,
} from "./manager/fleet-run.js";
export { type LeadershipOptions, runLeadership } from "./manager/leadership.js";
export {
  liftMachineExclusion,
  type MachineReport,
  type MachinesReport,
  machinesReport,
} from "./manager/machines-report.js";
export {
  managerHealthTimeoutMs,
  type RentingUrlConfig,
  type ResolveRentingManagerUrlOptions,
  requireRentingManagerUrl,
  resolveRentingManagerUrl,
  type VerifyManagerUrlOptions,
  verifyManagerUrl,
} from "./manager/manager-url.js";
export type { MonitorSummary } from "./manager/monitor.js";
export { type ExcludedOffer, type RankedOffer, rankVastOffers } from "./manager/rank-offers.js";
export type { ReconcileSummary } from "./manager/reconcile.js";
export { type AdminToken, adminTokenFileName, loadOrCreateAdminToken } from "./server/admin-token.js";
export { createDaemonStatusBoard, type DaemonStatusBoard } from "./server/daemon-status-board.js";
export type { DashboardOptions } from "./server/dashboard-routes.js";
export { excludedOfferView, offerView } from "./server/dashboard-views.js";
export {
  buildFleetServer,
  defaultFleetListen,
  type FleetServerOptions,
  type ListeningFleetServer,
  startFleetServer,
} from "./server/fleet-server.js";
export {
  defaultMaxEventStreams,
  type FleetServerTimeouts,
  fleetServerTimeoutDefaults,
} from "./server/server-limits.js";
export { checkStoreLocation, isPostgresUrl } from "./store/connection-string.js";
export type {
  ConnectFleetStoreOptions,
  EventsQuery,
  FleetStore,
  FleetStoreOptions,
  PlanInstanceInput,
  PlanOptions,
  SqliteFleetStore,
  TransitionChanges,
  TransitionOptions,
} from "./store/fleet-store.js";
export type {
  HostPerformanceInput,
  HostPerformanceRecord,
  HostPerformanceStore,
} from "./store/host-performance.js";
export type { LeaderLease } from "./store/leader-lease.js";
export { defaultStorePath } from "./store/open-database.js";
export { connectFleetStore, openFleetStore } from "./store/open-fleet-store.js";
export {
  openPostgresFleetStore,
  type PostgresFleetStoreOptions,
} from "./store/postgres-fleet-store.js";
export type {
  BenchmarkResultRecord,
  FleetEvent,
  InstanceLogLine,
  InstanceLogLineInput,
  InstanceRecord,
  OfferSnapshot,
  RateBasis,
} from "./store/records.js";
export {
  createWriterLease,
  defaultHolderName,
  type LeaseClaim,
  type WriterLease,
  type WriterLeaseOptions,
} from "./store/writer-lease.js";
