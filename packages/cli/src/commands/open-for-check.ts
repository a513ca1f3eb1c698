import type { CommandContext, OpenedProvider } from '../command-context';
import { ConfigError, UsageError } from '../errors';
import type { ReportBuilder } from '../report/report-builder';
import { describeError } from '../report/report-builder';

/**
 * Opens a provider for a command; a provider that cannot be opened becomes the failed check
 * `<command>.open` (undefined is returned), while a name that is not configured stays a usage error.
 */
export async function openForCheck(
  context: CommandContext,
  builder: ReportBuilder,
  name: string,
): Promise<OpenedProvider | undefined> {
  const started = context.io.now();
  try {
    return await context.openProvider(name);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) throw error;
    builder.add({
      id: `${builder.command}.open`,
      title: `open provider ${name}`,
      provider: name,
      status: 'failed',
      durationMs: Math.round(context.io.now() - started),
      detail: describeError(error),
    });
    return undefined;
  }
}
