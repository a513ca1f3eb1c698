/** The command line was not understood: exit 2, with the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The configuration is wrong: exit 2, naming the file and the field. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly file: string | undefined,
    readonly field: string | undefined,
  ) {
    super(file ? `${file}${field ? ` (${field})` : ''}: ${message}` : message);
  }
}
