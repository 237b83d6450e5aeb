import { InvalidInputError } from "@cuzkit/core";

/** Parses `HOST:PORT` (or `[::1]:PORT`); port 0 picks a free one. */
export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(listen);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) {
    throw new InvalidInputError(`--listen "${listen}" is not HOST:PORT`, {
      hint: "pass --listen 127.0.0.1:7320 (or 0.0.0.0:7320 to let agents on rented machines reach it)",
    });
  }
  return { host: (match[1] ?? match[2]) as string, port };
}
