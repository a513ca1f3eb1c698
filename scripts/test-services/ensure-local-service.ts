import { messageOf } from './errors';
import { redactUrl } from './redact';
import type { Ensured } from './types';

export interface LocalServiceSpec {
  /** For messages: "Redis", "PostgreSQL". */
  label: string;
  /** The variable that names a server to use as it is. */
  envName: string;
  override?: string;
  /** The already running server to try first; undefined skips the try. */
  probeUrl?: string;
  /** Resolves when the server at `url` answers and lets us in; rejects with why not. */
  usable(url: string): Promise<void>;
  /** Starts a private server (and says why it cannot). */
  start(): Promise<Ensured>;
}

const nothingToStop = async () => {};

/**
 * The same ladder for every local service: the server the environment names (never start one
 * then), else the one already running, else a private one. Each step that fails leaves a note.
 */
export async function ensureLocalService(spec: LocalServiceSpec): Promise<Ensured> {
  if (spec.override) {
    await spec.usable(spec.override).catch((error: unknown) => {
      throw new Error(`${spec.envName}=${redactUrl(spec.override ?? '')} is not usable: ${messageOf(error)}`);
    });
    return { url: spec.override, how: `from ${spec.envName}`, notes: [], stop: nothingToStop };
  }
  const notes: string[] = [];
  if (spec.probeUrl !== undefined) {
    try {
      await spec.usable(spec.probeUrl);
      return { url: spec.probeUrl, how: 'running', notes, stop: nothingToStop };
    } catch (error) {
      notes.push(`no usable ${spec.label} at ${redactUrl(spec.probeUrl)}: ${messageOf(error)}`);
    }
  }
  try {
    const started = await spec.start();
    return { ...started, notes: [...notes, ...started.notes] };
  } catch (error) {
    throw new Error([...notes, messageOf(error)].join('; '));
  }
}
