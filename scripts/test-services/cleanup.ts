/** Something this module started and must stop again, and nothing else. */
export interface Stoppable {
  stop(): Promise<void>;
  stopNow(): void;
}

const live = new Set<Stoppable>();
let hooksInstalled = false;

function stopAllNow(): void {
  for (const resource of live) {
    try {
      resource.stopNow();
    } catch {
      // Keep going: the other resources still need stopping.
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else listening (the CLI, vitest) owns the shutdown: it will call stop() or exit, and
  // the 'exit' hook covers the latter. Alone, we clean up and die the way the signal meant.
  if (process.listenerCount(signal) > 1) return;
  stopAllNow();
  process.removeListener(signal, onSignal);
  process.kill(process.pid, signal);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', stopAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
}

/**
 * Registers a started resource so that it is stopped on process exit or a fatal signal even if
 * nobody calls stop(). Returns its stop(), which also unregisters it and is safe to call twice.
 */
export function track(resource: Stoppable): () => Promise<void> {
  installHooks();
  live.add(resource);
  let stopping: Promise<void> | undefined;
  return () => {
    if (!live.has(resource)) return stopping ?? Promise.resolve();
    live.delete(resource);
    stopping = resource.stop();
    return stopping;
  };
}
