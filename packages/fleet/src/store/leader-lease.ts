/** A lease that says which manager acts (runLeadership drives one): the fleet's writer lease (writer-lease.ts). */
export interface LeaderLease {
  /** True while this process holds the lease. */
  readonly held: boolean;
  /** Resolves once this process holds the lease (tries every check interval); rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Resolves when a held lease is lost (another took it over, or it could not be renewed in time); the leader must stop acting at once. */
  lost(): Promise<void>;
  /** Gives the lease up (it lapses at once) so another manager takes over without waiting. */
  release(): Promise<void>;
}
