/**
 * The one line each of the server's own events is logged with (structured logs put it in
 * `message`, text logs after `[armature] `). Written here once for every logger.
 */
export const logMessages = {
  started(transport: 'stdio' | 'http', url?: string): string {
    return transport === 'http' ? `listening on ${url}` : 'serving on stdio';
  },
  stopping(reason: string): string {
    return `shutting down (${reason})`;
  },
  stopped(): string {
    return 'stopped';
  },
  refused(reason: string, message: string): string {
    return `refused (${reason}): ${message}`;
  },
  hostNotAllowed(host: string | null): string {
    return `the Host header ${JSON.stringify(host)} is not in allowedHosts`;
  },
  originNotAllowed(origin: string | null): string {
    return `the Origin header ${JSON.stringify(origin)} is not in allowedOrigins`;
  },
  /** A bearer-token refusal: its status and the challenge the client was given. */
  authRefused(status: number, challenge: string | null): string {
    return `HTTP ${status}, WWW-Authenticate: ${challenge ?? '(none)'}`;
  },
  /** `detail` is the error's message (structured logs, which carry the stack apart) or its stack (text). */
  callFailed(label: string, requestId: unknown, detail: string): string {
    // A string id is the client's text: quoted, so a newline in it cannot forge a line of a text log.
    const id = typeof requestId === 'string' ? JSON.stringify(requestId) : String(requestId);
    return `${label} (request ${id}) failed: ${detail}`;
  },
  remoteUp(part: string, remote: string, revision: string): string {
    return `${part}: connected to ${remote} (${revision})`;
  },
  remoteDown(part: string, remote: string, reason: string, retryInMs: number): string {
    return `${part}: ${remote} is unavailable (${reason}); trying again in ${retryInMs} ms`;
  },
  remoteSkipped(part: string, name: string, reason: string): string {
    return `${part}: "${name}" of the remote server is not served: ${reason}`;
  },
};
