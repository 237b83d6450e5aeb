import type { SimDaemonOptions } from "../options.js";
import { type SimDaemon, startSimDaemon } from "../sim-daemon.js";
import {
  createPlainGrpcClient,
  type PlainGrpcClient,
  type PlainGrpcClientOptions,
} from "./grpc-test-client.js";

/** Starts daemons and clients for one test and closes them all afterwards (call `cleanup` in afterEach). */
export function createTracker() {
  const daemons: SimDaemon[] = [];
  const clients: PlainGrpcClient[] = [];
  return {
    async daemon(options: SimDaemonOptions = {}): Promise<SimDaemon> {
      const daemon = await startSimDaemon(options);
      daemons.push(daemon);
      return daemon;
    },
    client(address: string, options?: PlainGrpcClientOptions): PlainGrpcClient {
      const client = createPlainGrpcClient(address, options);
      clients.push(client);
      return client;
    },
    async cleanup(): Promise<void> {
      for (const client of clients.splice(0)) client.close();
      await Promise.all(daemons.splice(0).map((daemon) => daemon.stop()));
    },
  };
}
