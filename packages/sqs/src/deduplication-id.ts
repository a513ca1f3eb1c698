import type { ProviderKeyRules } from '@queueport/core/driver';

/** SQS's rule for FIFO deduplication ids: at most 128 printable ASCII characters. */
export const DEDUPLICATION_ID_RULES: ProviderKeyRules = { maxLength: 128, allowed: /[\x21-\x7e]/ };
