import { describe, expect, it } from "vitest";
import { classifyResponse, rateLimitThresholdMs } from "./classify.js";
import {
  VastAuthError,
  VastBadRequestError,
  VastEndpointGoneError,
  VastInsufficientCreditError,
  VastNotFoundError,
  VastOfferGoneError,
  VastRateLimitedError,
  VastServerError,
  VastUnexpectedStatusError,
  VastUnsuccessfulError,
} from "./errors.js";

const facts = (status: number, body: unknown, isCreate = false, text = JSON.stringify(body) ?? "") => ({
  endpoint: isCreate ? "PUT /api/v0/asks/1/" : "GET /api/v0/instances/1/",
  status,
  body,
  text,
  isCreate,
});

describe("classifyResponse", () => {
  it("passes a successful response", () => {
    expect(classifyResponse(facts(200, { success: true }))).toBeUndefined();
    expect(classifyResponse(facts(200, [1, 2]))).toBeUndefined();
  });

  it.each([
    ["401", facts(401, { error: "auth_error", msg: "Invalid user key" }), VastAuthError, "VAST_AUTH", false],
    ["403", facts(403, { error: "not_authorized", msg: "no" }), VastAuthError, "VAST_AUTH", false],
    [
      "404 bad key",
      facts(404, { success: false, msg: "Invalid user key" }),
      VastAuthError,
      "VAST_AUTH",
      false,
    ],
    ["404 auth_error", facts(404, { error: "auth_error" }), VastAuthError, "VAST_AUTH", false],
    [
      "404",
      facts(404, { error: "not_found", msg: "Instance not found" }),
      VastNotFoundError,
      "VAST_NOT_FOUND",
      false,
    ],
    [
      "404 on create",
      facts(404, { error: "no_such_ask", msg: "Instance type by id 1 is not available." }, true),
      VastOfferGoneError,
      "VAST_OFFER_GONE",
      false,
    ],
    [
      "410 on create",
      facts(410, { msg: "no longer available" }, true),
      VastOfferGoneError,
      "VAST_OFFER_GONE",
      false,
    ],
    [
      "410 elsewhere",
      facts(410, { success: false, error: "deprecated_endpoint", msg: "/api/v0/instances/ is deprecated." }),
      VastEndpointGoneError,
      "VAST_ENDPOINT_GONE",
      false,
    ],
    [
      "411",
      facts(411, { msg: "Insufficient credit" }),
      VastInsufficientCreditError,
      "VAST_INSUFFICIENT_CREDIT",
      false,
    ],
    [
      "429 text",
      facts(429, undefined, false, "API requests too frequent endpoint threshold=2.0"),
      VastRateLimitedError,
      "VAST_RATE_LIMITED",
      true,
    ],
    [
      "429 detail",
      facts(429, { detail: "API requests too frequent" }),
      VastRateLimitedError,
      "VAST_RATE_LIMITED",
      true,
    ],
    [
      "502",
      facts(502, undefined, false, "<html>Bad Gateway</html>"),
      VastServerError,
      "VAST_SERVER_ERROR",
      true,
    ],
    ["503", facts(503, {}), VastServerError, "VAST_SERVER_ERROR", true],
    ["504", facts(504, {}), VastServerError, "VAST_SERVER_ERROR", true],
    ["500", facts(500, { msg: "oops" }), VastServerError, "VAST_SERVER_ERROR", false],
    ["501", facts(501, { msg: "Not Implemented" }), VastServerError, "VAST_SERVER_ERROR", false],
    [
      "200 success:false Instance not found (logs of a destroyed instance)",
      facts(200, { success: false, msg: "Instance not found" }),
      VastNotFoundError,
      "VAST_NOT_FOUND",
      false,
    ],
    [
      "200 success:false",
      facts(200, { success: false, msg: "Instance is busy" }),
      VastUnsuccessfulError,
      "VAST_UNSUCCESSFUL",
      false,
    ],
    [
      "400",
      facts(400, { error: "invalid_args", msg: "bad" }),
      VastBadRequestError,
      "VAST_BAD_REQUEST",
      false,
    ],
    ["483", facts(483, { msg: "Invalid json body" }), VastBadRequestError, "VAST_BAD_REQUEST", false],
    ["302", facts(302, undefined, false, ""), VastUnexpectedStatusError, "VAST_UNEXPECTED_STATUS", false],
  ])("%s", (_name, input, type, code, retryable) => {
    const error = classifyResponse(input)!;
    expect(error).toBeInstanceOf(type);
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.status).toBe(input.status);
    expect(error.endpoint).toBe(input.endpoint);
    expect(error.hint).not.toBe("");
  });

  it("keeps the server's message and error code", () => {
    const error = classifyResponse(facts(404, { success: false, error: "no_such_ask", msg: "gone" }, true))!;
    expect(error.serverMessage).toBe("gone");
    expect(error.serverError).toBe("no_such_ask");
    expect(error.message).toBe("Vast.ai PUT /api/v0/asks/1/ failed with 404 no_such_ask: gone");
  });

  it("does not take an HTML page for a message", () => {
    expect(classifyResponse(facts(502, undefined, false, "<html>x</html>"))!.serverMessage).toBeUndefined();
  });
});

describe("rateLimitThresholdMs", () => {
  it.each([
    ["API requests too frequent endpoint threshold=4.5", 4500],
    ['{"detail": "API requests too frequent endpoint threshold=1.0"}', 1000],
    ["API requests too frequent", undefined],
    ["threshold=99999", undefined],
  ])("reads %j", (text, ms) => {
    expect(rateLimitThresholdMs(text)).toBe(ms);
  });

  it("puts the threshold on the 429 error", () => {
    const error = classifyResponse(facts(429, undefined, false, "too frequent endpoint threshold=3.0"));
    expect(error).toBeInstanceOf(VastRateLimitedError);
    expect((error as VastRateLimitedError).thresholdMs).toBe(3000);
  });
});
