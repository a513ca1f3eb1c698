/**
 * Whether an import failed because a package is not installed (an optional peer). Loaders and
 * bundlers wrap the resolution failure, so its code may sit a few causes down.
 */
export function isModuleNotFound(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
