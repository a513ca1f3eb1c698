/**
 * The Infrai simulator in a process of its own, for the benchmarks: its CPU is then not the
 * client's, and both sides of a pair talk to the same server over loopback. It prints one JSON
 * line `{ url, apiKey }` once listening; a stdin line `cpu` answers `{ cpuUs }` (this process's
 * user + system time so far), a line `fault <json>` arms one of the simulator's faults (an
 * InfraiFault: a status burst, a dropped connection; the chaos campaign's), and the end of stdin
 * (or SIGTERM) closes it.
 *
 *   node --import tsx scripts/bench/shared/infrai-simulator-process.ts
 */
import { createInterface } from 'node:readline';
import { type InfraiFault, startInfraiSimulator } from '@queueport/infrai/testing';

const simulator = await startInfraiSimulator();
process.stdout.write(`${JSON.stringify({ url: simulator.url, apiKey: simulator.apiKey })}\n`);

let closing = false;
function stop(): void {
  if (closing) return;
  closing = true;
  simulator.close().finally(() => process.exit(0));
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.startsWith('fault ')) {
    try {
      simulator.faults.inject(JSON.parse(line.slice('fault '.length)) as InfraiFault);
    } catch (error) {
      process.stderr.write(`infrai-simulator-process: a fault was refused: ${String(error)}\n`);
    }
    return;
  }
  if (line.trim() !== 'cpu') return;
  const used = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpuUs: used.user + used.system })}\n`);
});
lines.on('close', stop);
process.on('SIGTERM', stop);
