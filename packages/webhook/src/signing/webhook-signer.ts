import { QueueError } from '@queueport/core';
import { Webhook } from 'standardwebhooks';
import { assertSigningSecret } from './signing-secret';

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export interface SignInput {
  /** The logical event id: receivers deduplicate on webhook-id. */
  id: string;
  /** Unix milliseconds; sent as whole seconds. */
  timestamp: number;
  /** The exact bytes that will be sent. Signing a re-serialised body is the classic failure. */
  body: string;
}

/**
 * Standard Webhooks signing through the `standardwebhooks` package (no hand-written HMAC).
 * Several secrets sign the same message and the signatures go space-separated in one header,
 * which is how a rotation works: the receiver accepts any of them while it switches over.
 */
export class WebhookSigner {
  // #private: util.inspect and JSON.stringify of a signer never reach the key material.
  readonly #webhooks: readonly Webhook[];

  constructor(secrets: string | readonly string[]) {
    if (typeof secrets !== 'string' && !Array.isArray(secrets)) {
      throw new QueueError('INVALID_ARGUMENT', 'signing secrets must be a string or an array of strings', {
        details: { field: 'secrets' },
      });
    }
    const list: unknown[] = typeof secrets === 'string' ? [secrets] : [...secrets];
    if (list.length === 0) {
      throw new QueueError('INVALID_ARGUMENT', 'at least one signing secret is required', {
        details: { field: 'secrets' },
      });
    }
    list.forEach((secret, i) => {
      assertSigningSecret(secret, i + 1);
    });
    this.#webhooks = list.map((secret) => new Webhook(secret as string));
  }

  get secretCount(): number {
    return this.#webhooks.length;
  }

  sign(input: SignInput): SignatureHeaders {
    const date = new Date(input.timestamp);
    return {
      'webhook-id': input.id,
      'webhook-timestamp': String(Math.floor(input.timestamp / 1000)),
      'webhook-signature': this.#webhooks
        .map((webhook) => webhook.sign(input.id, date, input.body))
        .join(' '),
    };
  }

  toJSON(): Record<string, unknown> {
    return { secrets: this.#webhooks.length };
  }
}
