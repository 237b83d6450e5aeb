import type { ServerResponse } from "node:http";
import type { Reply } from "./types.js";

/** Writes a reply: its text, or its body as JSON. */
export function send(res: ServerResponse, reply: Reply): void {
  const text = reply.text ?? JSON.stringify(reply.body);
  res.writeHead(reply.status, { "Content-Type": reply.contentType ?? "application/json" });
  res.end(text);
}

/** An S3-style XML error. */
export function s3Error(status: number, code: string, message: string): Reply {
  return {
    status,
    body: undefined,
    text: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
    contentType: "application/xml",
  };
}

/** The API's JSON 404 for an instance it does not know. */
export function instanceNotFound(): Reply {
  return { status: 404, body: { success: false, error: "not_found", msg: "Instance not found" } };
}

/** The web server's HTML 404 for a path nothing serves. */
export function htmlNotFound(): Reply {
  return { status: 404, body: undefined, text: "<html>Not Found</html>", contentType: "text/html" };
}

/** 400 invalid_args with `msg`. */
export function invalidArgs(msg: string): Reply {
  return { status: 400, body: { success: false, error: "invalid_args", msg } };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
