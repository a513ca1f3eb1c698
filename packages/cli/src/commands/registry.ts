import type { Command } from '../command-context';
import { drillCommand } from '../drill';
import { migrateCommand } from '../migrate';
import { reconcileCommand } from '../reconcile';
import { conformanceCommand } from './conformance';
import { destinationsCommand } from './destinations';
import { dlqCommand } from './dlq';
import { ledgerCommand } from './ledger-show';
import { pruneCommand } from './prune';

/** Every command, in the order --help lists them. */
export const COMMANDS: readonly Command[] = [
  drillCommand,
  conformanceCommand,
  migrateCommand,
  reconcileCommand,
  ledgerCommand,
  dlqCommand,
  destinationsCommand,
  pruneCommand,
];
