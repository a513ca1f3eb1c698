import { QueueError } from '../errors';

/**
 * Longer names are never echoed, and never measured: a near miss of a real option name is short,
 * while a long name is more likely a pasted token, and Levenshtein is quadratic in its length.
 */
const MAX_SHOWN_NAME = 64;

/** Only a name that reads as one is echoed, so a near miss cannot smuggle control characters into a log line. */
const NAME_SHAPE = /^[A-Za-z0-9_.-]+$/;

const MAX_DISTANCE = 2;

export interface UnknownOptionRules {
  /**
   * An adapter's extra rule for a near miss, beyond an edit distance of at most 2 (memory://
   * accepts the start of a name). Both arguments are lower-cased.
   */
  readonly isNear?: (typed: string, option: string) => boolean;
}

/**
 * The error for a URL option the adapter does not take. The name is shown only when it is a
 * near miss of a known one (`prefx`, `DB`), with the suggestion; a name of any other shape may be
 * a secret pasted where a name goes, so it is replaced by `(not shown)`.
 */
export function unknownOptionError(
  scheme: string,
  name: string,
  known: readonly string[],
  rules: UnknownOptionRules = {},
): QueueError {
  const near = nearOption(name, known, rules);
  const takes = known.join(', ');
  if (near !== undefined) {
    return new QueueError(
      'INVALID_ARGUMENT',
      `${scheme}:// URLs take no option "${name}"; did you mean ${near}? (they take ${takes})`,
      { details: { field: name, suggestion: near } },
    );
  }
  return new QueueError(
    'INVALID_ARGUMENT',
    `${scheme}:// URLs take no such option (its name is not shown: it may be a secret); they take ${takes}`,
    { details: { field: '(not shown)' } },
  );
}

function nearOption(name: string, known: readonly string[], rules: UnknownOptionRules): string | undefined {
  if (name.length === 0 || name.length > MAX_SHOWN_NAME || !NAME_SHAPE.test(name)) return undefined;
  const typed = name.toLowerCase();
  return known.find((option) => {
    const candidate = option.toLowerCase();
    return withinDistance(typed, candidate) || rules.isNear?.(typed, candidate) === true;
  });
}

function withinDistance(a: string, b: string): boolean {
  return Math.abs(a.length - b.length) <= MAX_DISTANCE && editDistance(a, b) <= MAX_DISTANCE;
}

/** Levenshtein distance; callers bound both lengths to a few dozen characters. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
