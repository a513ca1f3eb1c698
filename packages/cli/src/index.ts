/**
 * @queueport/cli as a library: the same commands the `queueport` bin runs, for programs that
 * drive them in-process (a CI step of their own, a test), and the pieces they are built from.
 */
export type { Command, CommandContext, OpenedProvider } from './command-context';
export { conformanceCommand } from './commands/conformance';
export { dlqCommand } from './commands/dlq';
export { ledgerCommand } from './commands/ledger-show';
export { COMMANDS } from './commands/registry';
export { configEnv, type Env } from './config/config-env';
export type {
  LedgerConfig,
  LoadedConfig,
  ProviderConfig,
  QueueportConfig,
  ReceiverConfig,
} from './config/config-types';
export { defineConfig } from './config/define-config';
export {
  EMBEDDED_QUEUE,
  EMBEDDED_RECEIVER_SECRET_ENV,
  startEmbeddedDefaults,
} from './config/embedded-defaults';
export { CONFIG_FILE_NAMES, type LoadConfigOptions, loadConfig } from './config/load-config';
export { validateConfig } from './config/validate-config';
export { type CliCommandContext, type CommandContextOptions, createCommandContext } from './context';
export { drillCommand } from './drill';
export { ConfigError, UsageError } from './errors';
export { EXIT, type ExitCode } from './exit-codes';
export { type CliIo, processIo } from './io';
export { openConfiguredLedger } from './ledger/open-ledger';
export { type MainOptions, main } from './main';
export * from './migrate';
export { knownSchemes, loadAdapter } from './providers/known-adapters';
export { providerUrlOf } from './providers/provider-url';
export { withEnv } from './providers/with-env';
export * from './reconcile';
export { type EmitOptions, emitReport } from './report/emit-report';
export { countChecks, formatHuman, type HumanOptions } from './report/human';
export { formatJson } from './report/json';
export { formatJunit } from './report/junit';
export { createProgress, type Progress, type ProgressOptions } from './report/progress';
export { Redactor } from './report/redact-output';
export { describeError, ReportBuilder } from './report/report-builder';
export type { CheckResult, CommandReport } from './report/report-types';
export { EXIT_GRACE_MS, runAsProcess, STOP_CLEANUP_MS } from './run-process';
