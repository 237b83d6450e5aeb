/// <reference lib="dom" />
// The dashboard's calls to the admin API. The admin token, when the operator typed one, lives in
// sessionStorage only (gone when the tab closes) and travels as a bearer header, never in a URL.

const tokenKey = "cuzkit-admin-token";

/** The admin token typed into this tab, or undefined. */
export function adminToken(): string | undefined {
  return sessionStorage.getItem(tokenKey) ?? undefined;
}

/** Keeps (or, with an empty string, forgets) the admin token for this tab. */
export function setAdminToken(token: string): void {
  if (token === "") sessionStorage.removeItem(tokenKey);
  else sessionStorage.setItem(tokenKey, token);
}

function headers(): Record<string, string> {
  const token = adminToken();
  // Without a token the request carries no Authorization header at all (not an empty one).
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** An API answer that was not 2xx. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
  if (!response.ok)
    throw new ApiError(response.status, body.error ?? "HTTP_ERROR", body.message ?? response.statusText);
  return body as T;
}

/** GET a JSON endpoint. */
export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { headers: headers() }));
}

/** POST a JSON body to an action endpoint. */
export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  return answer<T>(
    await fetch(path, {
      method: "POST",
      headers: { ...headers(), "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

/**
 * Follows /api/stream (server-sent events) and calls `onEvent` for each one; reconnects after a
 * drop. Read with fetch rather than EventSource so the admin token can go in a header.
 */
export function followStream(
  onEvent: (type: string, data: string) => void,
  onState: (connected: boolean) => void,
): void {
  const connect = async () => {
    try {
      const response = await fetch("/api/stream", { headers: headers() });
      if (!response.ok || response.body === null) throw new Error(`stream answered ${response.status}`);
      onState(true);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let type = "message";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) type = line.slice(7);
            else if (line.startsWith("data: ")) data.push(line.slice(6));
          }
          onEvent(type, data.join("\n"));
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // fall through to the retry
    }
    onState(false);
    setTimeout(connect, 3000);
  };
  void connect();
}
