/** The bare HTTP exchange the delivery baselines make: the same headers the sender sets, no signing. */
import { Agent, request } from 'undici';
import type { EncodedEvent } from './fixtures';

export interface RawPoster {
  post(url: string, event: EncodedEvent): Promise<void>;
  close(): Promise<void>;
}

export function rawPoster(connections: number): RawPoster {
  const agent = new Agent({ connections });
  return {
    async post(url, { id, body }) {
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        body,
        headers: { 'content-type': 'application/json', 'idempotency-key': id, 'webhook-id': id },
      });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`POST ${id} answered ${response.statusCode}`);
    },
    close: () => agent.close(),
  };
}
