import type { Redis } from 'ioredis';

/** How long a polite QUIT may take before the socket is simply dropped. */
const QUIT_GRACE_MS = 1000;

/**
 * Closes a connection the driver opened. QUIT waits behind commands ioredis holds while Redis is
 * down (maxRetriesPerRequest: null holds them until it is back), so it is bounded, and the socket
 * is dropped whatever it answered: a close never waits for Redis to return.
 */
export async function closeConnection(connection: Redis): Promise<void> {
  if (connection.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      connection.quit().catch(() => {}),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, QUIT_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
  }
  connection.disconnect();
}
