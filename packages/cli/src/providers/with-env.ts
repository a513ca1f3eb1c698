import type { AdapterDefinition, OpenContext } from '@queueport/core/driver';

/**
 * The definition with the CLI's environment in every open, for callers that pass none (the
 * conformance harness): the secrets a provider URL names by `*Env` come from the CLI's view of
 * the environment, embedded defaults included, never from the process behind its back.
 */
export function withEnv(
  definition: AdapterDefinition,
  env: Readonly<Record<string, string | undefined>>,
): AdapterDefinition {
  const contextOf = (context: OpenContext): OpenContext => ({ ...context, env: { ...env, ...context.env } });
  const admin = definition.admin;
  return {
    ...definition,
    open: (url, context) => definition.open(url, contextOf(context)),
    ...(admin
      ? { admin: (url: URL, context: OpenContext) => admin.call(definition, url, contextOf(context)) }
      : {}),
  };
}
