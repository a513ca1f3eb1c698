import { accessSync, constants, readdirSync } from 'node:fs';
import path from 'node:path';

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds an executable on PATH, then in `extraDirs`; undefined when there is none. */
export function findExecutable(name: string, extraDirs: readonly string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...extraDirs].filter(Boolean);
  return dirs.map((dir) => path.join(dir, name)).find(isExecutable);
}

/**
 * Debian installs PostgreSQL's server tools under /usr/lib/postgresql/<major>/bin, off PATH;
 * the newest major comes first.
 */
export function postgresBinDirs(root = '/usr/lib/postgresql'): string[] {
  let majors: string[];
  try {
    majors = readdirSync(root);
  } catch {
    return [];
  }
  return majors
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    .map((major) => path.join(root, major, 'bin'));
}
