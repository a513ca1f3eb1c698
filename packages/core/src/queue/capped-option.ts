/**
 * Options that exist only as a provider's maximum (how long a receive may wait, how many
 * messages one receive may bring) are capped to it, not refused, so portable code need not
 * read the manifest. The Queue says so with a `capped` event.
 */
export type CappedOption = 'waitSeconds' | 'maxMessages';

export interface CappedEvent {
  option: CappedOption;
  /** What the caller asked for. */
  requested: number;
  /** The provider's maximum, which was used instead. */
  applied: number;
  /** Where the option was given: a `receive` call, or `consume` (capped once, at start). */
  source: 'receive' | 'consume';
}

/** The Queue's capping, for its consumers; a symbol keeps it off the public surface. */
export const CAP_OPTION = Symbol('queueport.capOption');

export interface OptionCapper {
  [CAP_OPTION](option: CappedOption, requested: number, max: number, source: CappedEvent['source']): number;
}
