// A lease holder's heartbeat: `beat` runs every `everyMs` while the holder works, one at a time,
// so a lease stays short (freed soon after its holder dies) however long the work takes.

/** Starts beating; the function answered stops it and waits for a beat in flight. */
export function startHeartbeat(everyMs: number, beat: () => Promise<void>): () => Promise<void> {
  let last: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    // The database out of reach for a moment: the next beat tries again within the lease.
    last = last.then(beat).catch(() => undefined);
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await last;
  };
}
