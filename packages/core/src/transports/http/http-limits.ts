/** The defaults of the HTTP endpoint's caps (`HttpEndpointOptions`), in one place (docs/security.md lists them). */
export const DEFAULT_HTTP_LIMITS = Object.freeze({
  maxSessions: 5_000,
  maxSessionsPerClient: 100,
  sessionIdleTimeoutMs: 30 * 60_000,
  sessionInitializeTimeoutMs: 30_000,
  maxListenStreams: 1_024,
  maxListenStreamsPerClient: 16,
});
