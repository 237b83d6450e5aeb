import { s3Error } from "../replies.js";
import type { RouteHandler } from "./request.js";

// Logs: a request for an instance's log answers an S3-like URL, which 404s a few times before
// it serves the text, and rejects an Authorization header.

/** PUT /api/v0/instances/request_logs/:id/: a fresh log URL (200 success:false for a gone instance, as the real API does). */
export const requestLogs: RouteHandler = (state, _request, match) => {
  // The real API answers 200 with success:false for a gone instance here.
  if (!state.instances.has(Number(match[1])))
    return { status: 200, body: { success: false, msg: "Instance not found" } };
  const token = `log-${state.nextLogToken++}`;
  state.logPolls.set(token, 0);
  return {
    status: 200,
    body: {
      success: true,
      result_url: `${state.url}/s3/logs/${token}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=0123abcd`,
      msg: "Logs request queued",
    },
  };
};

/** GET /s3/logs/:token: the S3-like log download (no API auth; an Authorization header is an error). */
export const downloadLog: RouteHandler = (state, { headers }, match) => {
  if (headers.authorization !== undefined) {
    return s3Error(
      400,
      "InvalidArgument",
      "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter...",
    );
  }
  const token = match[1]!;
  if (!state.logPolls.has(token)) return s3Error(403, "AccessDenied", "Access Denied");
  const polls = (state.logPolls.get(token) ?? 0) + 1;
  state.logPolls.set(token, polls);
  if (polls <= state.logNotReadyPolls) return s3Error(404, "NoSuchKey", "The specified key does not exist.");
  return { status: 200, body: undefined, text: state.logText, contentType: "text/plain" };
};
