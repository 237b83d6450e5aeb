// @cuzkit/vast/testing: a fake Vast.ai server on loopback and sample offers, for tests of code
// built on the Vast client (not for production use).
export {
  type FakeRateLimitedEndpoint,
  type FakeVastServer,
  type FakeVastServerOptions,
  fakeRateLimitSeconds,
  type RecordedRequest,
  type ScriptedFailure,
  startFakeVastServer,
} from "./fake-vast-server.js";
export { sampleOffers } from "./sample-offers.js";
