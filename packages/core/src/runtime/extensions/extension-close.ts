import type { ExtensionDefinition } from '../../builder/definitions.js';
import type { ServerEvents } from '../../observability/server-events.js';

/**
 * Runs every extension's `close` hook at once and waits for all: one that throws or rejects is
 * told as `extension-close-failed` (and logged), and keeps none of the others from closing.
 */
export async function closeExtensions(extensions: readonly ExtensionDefinition[], events: ServerEvents): Promise<void> {
  await Promise.all(
    extensions.map(async (extension) => {
      if (!extension.close) return;
      try {
        await extension.close();
      } catch (error) {
        events.emit({ event: 'extension-close-failed', extension: extension.id, error });
      }
    }),
  );
}
