import { connect } from "node:net";
import { parseDaemonAddress } from "@cuzkit/client";

/**
 * Whether something accepts connections at a daemon address (TCP or unix socket) within
 * `timeoutMs`. A refused connection or a missing socket file means nothing listens there.
 */
export function addressAnswers(address: string, timeoutMs = 2_000): Promise<boolean> {
  const parsed = parseDaemonAddress(address);
  return new Promise((resolve) => {
    const socket =
      parsed.kind === "unix"
        ? connect({ path: parsed.path })
        : connect({ host: parsed.host, port: parsed.port });
    const done = (answers: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answers);
    };
    // Accepting and then saying nothing still means the address is taken.
    const timer = setTimeout(() => done(true), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
