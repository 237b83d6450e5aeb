// @cuzkit/fleet: rents GPU machines on Vast.ai, lets each vet itself with the agent (parameters,
// tuning, a benchmark), and keeps only those whose measured proofs/hour clears the minimum.
// The agent (also its own entry, @cuzkit/fleet/agent).
export * from "./agent/index.js";
export { type VettingResult, verdictOf } from "./agent/vetting.js";
export { type CurioLinkOptions, fallbackDrainDeadlineMs } from "./curio/curio-link.js";
export { type CurioRate, curioRatesText } from "./curio/curio-rate.js";
export { cordonAndDrain, type DrainOutcome } from "./curio/drain.js";
export {
  type CurioMachine,
  type CurioProduction,
  type CurioProofTaskType,
  curioProofTaskTypes,
  defaultCurioSchema,
  type HarmonySource,
  type HarmonySourceOptions,
  hostOf,
  openHarmonySource,
} from "./curio/harmony-source.js";
export { type CurioInstance, curioInstances } from "./curio/machine-map.js";
export { latestCurioRates, recordCurioProduction } from "./curio/production-sync.js";
export {
  type DeadlineInputs,
  type DeadlinePhase,
  type DeadlinePolicy,
  defaultDeadlineFloorsMs,
  defaultImageBytes,
  defaultParamsBytes,
  derivePhaseDeadlines,
  heartbeatIntervalMs,
  isHeartbeatLost,
  isPastDeadline,
  missedHeartbeatsForLost,
  type PhaseDeadlinesMs,
} from "./deadlines.js";
export {
  type BenchVerdict,
  benchVerdicts,
  type Decision,
  decideBenchmark,
  isVastFailureStatus,
} from "./decision.js";
export {
  type ClassCalibration,
  learnCalibration,
  type RateSample,
  toTunerCalibration,
} from "./economics/calibration.js";
export { type ClassHardware, cpuCoreTier, hardwareClassKey, ramTierGib } from "./economics/hardware-class.js";
export {
  buildKnowledge,
  type KnowledgeSources,
  knowledgeFromStore,
  rateSamples,
} from "./economics/knowledge.js";
export {
  type EstimateSource,
  type ExcludedCandidate,
  type MachineMeasurements,
  noKnowledge,
  type RankCandidate,
  type RankedCandidate,
  type RankingKnowledge,
  type RankingOptions,
  rankCandidates,
} from "./economics/ranking.js";
export {
  type FleetDecision,
  type FleetMember,
  type FleetPlanInput,
  type FleetTarget,
  planFleetStep,
} from "./economics/run-planner.js";
export {
  FleetBudgetError,
  FleetConfigError,
  FleetInstanceNotFoundError,
  FleetInstanceNotLiveError,
  FleetOfferRefusedError,
  FleetStoreError,
  FleetTransitionError,
} from "./errors.js";
export {
  canTransition,
  decidedToDestroy,
  heartbeatStates,
  type InstanceState,
  instanceStates,
  isFinalState,
  isInstanceState,
  mayBeBilling,
  timedStates,
  transitions,
  type VettingState,
  vettingStates,
} from "./lifecycle.js";
export type { AgentInstructions, ReportAnswer } from "./manager/agent-handlers.js";
export type {
  FailureBody,
  FinalReportBody,
  HeartbeatBody,
  PhaseBody,
  ProofRecord,
  RegisterBody,
  ThroughputBody,
} from "./manager/agent-schemas.js";
export {
  type FleetConfig,
  fleetLabelPrefix,
  instanceIdOfLabel,
  instanceLabel,
  type ResolvedFleetConfig,
  resolveFleetConfig,
} from "./manager/config.js";
export type { Checkpoint, FleetVast } from "./manager/context.js";
export type { DeployOptions } from "./manager/deploy.js";
export {
  createFleetManager,
  type FleetManager,
  type FleetManagerOptions,
  type LoopOptions,
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
export type { MonitorSummary } from "./manager/monitor.js";
export {
  type ExcludedOffer,
  offerCandidate,
  type RankedOffer,
  rankVastOffers,
} from "./manager/rank-offers.js";
export type { ReconcileSummary } from "./manager/reconcile.js";
export { type ModelledDurationOptions, modelledDeadlineInputs } from "./modelled-durations.js";
export {
  type AdminToken,
  adminTokenFileName,
  isLoopbackHost,
  loadOrCreateAdminToken,
} from "./server/admin-token.js";
export {
  type AgentPage,
  type AgentPageOptions,
  defaultAgentPageListen,
  localInstanceId,
  startAgentPage,
} from "./server/agent-page.js";
export { createDaemonStatusBoard, type DaemonStatusBoard } from "./server/daemon-status-board.js";
export { type DashboardOptions, dashboardPlugin } from "./server/dashboard-routes.js";
export {
  type ExcludedOfferView,
  excludedOfferView,
  type InstanceListView,
  type InstanceView,
  instanceView,
  type OfferView,
  offerView,
} from "./server/dashboard-views.js";
export {
  buildFleetServer,
  defaultFleetListen,
  type FleetServerOptions,
  type ListeningFleetServer,
  parseListen,
  startFleetServer,
} from "./server/fleet-server.js";
export { openApiDocument } from "./server/openapi.js";
export { isPostgresUrl, redactConnectionString } from "./store/connection-string.js";
export {
  type ConnectFleetStoreOptions,
  connectFleetStore,
  type EventsQuery,
  type FleetStore,
  type FleetStoreOptions,
  openFleetStore,
  type PlanInstanceInput,
  type PlanOptions,
  type SqliteFleetStore,
  type TransitionChanges,
  type TransitionOptions,
} from "./store/fleet-store.js";
export type {
  HostPerformanceInput,
  HostPerformanceRecord,
  HostPerformanceStore,
} from "./store/host-performance.js";
export { createLeaderLease, type LeaderLease, type LeaderLeaseOptions } from "./store/leader-lease.js";
export { busyTimeoutMs, defaultStorePath } from "./store/open-database.js";
export {
  defaultFleetSchema,
  openPostgresFleetStore,
  type PostgresFleetStoreOptions,
} from "./store/postgres-fleet-store.js";
export type { BenchmarkResultRecord, FleetEvent, InstanceRecord, OfferSnapshot } from "./store/records.js";
export { type DemoOffer, demoMarket } from "./testing/demo-market.js";
export { type EconomyDemoOptions, type EconomyDemoSummary, runEconomyDemo } from "./testing/economy-demo.js";
export {
  type EconomyEvent,
  type EconomyOptions,
  type EconomyPolicy,
  type EconomyResult,
  simulateEconomy,
} from "./testing/economy-sim.js";
export {
  type HiddenMarket,
  type HiddenOffer,
  type HiddenQuirk,
  hiddenMarket,
} from "./testing/hidden-truth.js";
export {
  type CuzkitCommand,
  type MachineBehaviour,
  type Market,
  type MarketMachine,
  type MarketOptions,
  type MarketProduction,
  startMarket,
} from "./testing/market.js";
export {
  type DemoInstanceOutcome,
  type DemoProgress,
  type MarketDemoOptions,
  type MarketDemoSummary,
  runMarketDemo,
} from "./testing/market-demo.js";
export { agentTokenMatches, generateAgentToken, hashAgentToken } from "./tokens.js";
