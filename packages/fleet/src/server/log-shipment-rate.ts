/**
 * Whether an instance may ship its logs now: at most `perMinute` accepted shipments in any
 * minute. Counts an allowed shipment; keeps the times of instances seen in the last minute only.
 */
export function createShipmentLimiter(now: () => number, perMinute: number): (id: string) => boolean {
  /** The times of each instance's accepted shipments in the last minute (instances seen lately only). */
  const recentShipments = new Map<string, number[]>();
  return (id) => {
    const at = now();
    for (const [other, times] of recentShipments) {
      const kept = times.filter((t) => at - t < 60_000);
      if (kept.length === 0) recentShipments.delete(other);
      else recentShipments.set(other, kept);
    }
    const times = recentShipments.get(id) ?? [];
    if (times.length >= perMinute) return false;
    recentShipments.set(id, [...times, at]);
    return true;
  };
}
