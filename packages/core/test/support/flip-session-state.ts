import { Server } from '@modelcontextprotocol/server';
import { vi } from 'vitest';

/**
 * Fresh modules, so that the session-state self-check (seams/sdk-session-state.ts) runs again, on
 * a probe whose negotiated revision does not read back, as an SDK whose internals changed would:
 * the seam is then off in what is imported next.
 */
export function flipSessionStateCheck(): void {
  vi.resetModules();
  const read = Server.prototype.getNegotiatedProtocolVersion;
  vi.spyOn(Server.prototype, 'getNegotiatedProtocolVersion').mockImplementation(function (this: Server) {
    const isProbe = (this as unknown as { _serverInfo?: { name?: string } })._serverInfo?.name === 'probe';
    return isProbe ? 'flipped' : read.call(this);
  });
}
