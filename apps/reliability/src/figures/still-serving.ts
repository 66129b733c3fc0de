import type { ServerProcess } from '../child.js';
import type { Checks } from '../report.js';
import type { StatsReport } from '../server/protocol.js';
import type { HttpClient } from '../wire/http-peer.js';

/**
 * After a figure's ordeal: one more call in `session` is answered, the server process is alive and
 * had no unhandled rejection.
 */
export async function checkStillServing(
  checks: Checks,
  server: ServerProcess,
  client: HttpClient,
  session: string,
  id: string | number,
  after: string,
): Promise<void> {
  const answer = await client.call(session, id, 'echo', { token: 'after' });
  checks.expect(answer.status === 200 && answer.text.includes('after'), `a call after ${after} failed: HTTP ${answer.status}`);
  const stats = await server.ask<StatsReport>({ cmd: 'stats' });
  checks.expect(server.alive && stats.unhandledRejections === 0, `server exited or had ${stats.unhandledRejections} unhandled rejections`);
}
