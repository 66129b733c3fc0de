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
  misconfigured(message: string): string {
    return `WARNING ${message}`;
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
  trustProxyPublicPeer(trustProxy: number | string, peer: string): string {
    const source = typeof trustProxy === 'number' ? 'X-Forwarded-For' : `the ${trustProxy} header`;
    return (
      `trustProxy is ${JSON.stringify(trustProxy)} but a request came straight from the public address ${peer}, not through a proxy: ` +
      `any client reaching the server directly chooses the address its rate limits, failed-authentication budget and per-client caps count (${source}). ` +
      'Fix: let only the proxy reach the server (listen on a private interface, or firewall the port), or leave trustProxy out when no proxy is in front'
    );
  },
  /** A bearer-token refusal: its status and the challenge the client was given. */
  authRefused(status: number, challenge: string | null): string {
    return `HTTP ${status}, WWW-Authenticate: ${challenge ?? '(none)'}`;
  },
  /** `detail` is the error's message (structured logs, which carry the stack apart) or its stack (text). */
  extensionCloseFailed(extension: string, detail: string): string {
    return `extension ${extension} failed to close: ${detail}`;
  },
  callFailed(label: string, requestId: unknown, errorId: string | undefined, detail: string): string {
    // A string id is the client's text: quoted, so that `"7"` and `7` read apart (the log escapes its control characters).
    const id = typeof requestId === 'string' ? JSON.stringify(requestId) : String(requestId);
    return `${label} (request ${id}${errorId === undefined ? '' : `, error ${errorId}`}) failed: ${detail}`;
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
