import { isShowableWord } from './config/secret-names';
import { UsageError } from './errors';

/** Seconds per unit of an age as typed: retention is written in days, tests in seconds. */
const UNIT_SECONDS = { d: 86_400, h: 3_600, m: 60, s: 1 } as const;
type Unit = keyof typeof UNIT_SECONDS;

const AGE = /^([0-9]+)([dhms])$/;

/** `--history 30d`: a whole number and one unit (s, m, h, d), in seconds; undefined when not given. */
export function ageOption(value: string | undefined, flag: string, usage: string): number | undefined {
  if (value === undefined) return undefined;
  const match = AGE.exec(value);
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2] as Unit] : Number.NaN;
  if (!Number.isSafeInteger(seconds)) {
    const shown = isShowableWord(value) || /^[-+0-9.a-z]{1,16}$/i.test(value) ? `, not "${value}"` : '';
    throw new UsageError(
      `${flag} takes an age: a whole number and s, m, h or d, such as 30d or 12h${shown}\n\n${usage}`,
    );
  }
  return seconds;
}

/** An age in the largest unit it is a whole number of, as the flags take it: 1209600 → "14d". */
export function formatAge(seconds: number): string {
  for (const unit of Object.keys(UNIT_SECONDS) as Unit[]) {
    const count = seconds / UNIT_SECONDS[unit];
    if (seconds > 0 && Number.isInteger(count)) return `${count}${unit}`;
  }
  return `${seconds}s`;
}
