import type { McpApp } from '../../src/index.js';

/** Tells the app's event hub of a rate-limit refusal of a tools/call, as the rate limiter does (metrics count refusals from there). */
export function reportRefusal(app: McpApp): void {
  (app as unknown as { runtime: { events: { emit(event: unknown): void } } }).runtime.events.emit({
    event: 'refused',
    reason: 'rate-limit',
    message: 'slow down',
    method: 'tools/call',
    retryAfterMs: 1000,
  });
}
