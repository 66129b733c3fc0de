/**
 * What the wires answer themselves (stdio lines, HTTP admission and sessions), before or beside any
 * handler: written here once, each saying what was wrong and what to do.
 */
export const wireMessages = {
  // Any wire
  invalidRequest: (problem: string) => `Invalid Request: ${problem}`,
  notJson: 'Parse error: the line is not valid JSON',
  notUtf8: 'Parse error: the line is not valid UTF-8; send JSON text encoded as UTF-8',
  batchOnStdio: 'Invalid Request: batches are not supported; send one JSON-RPC message per line',
  notJsonRpc: 'Invalid Request: not a JSON-RPC 2.0 request or notification',
  lineTooLarge: (max: number) => `Invalid Request: a message must not exceed ${max} bytes`,
  idInFlight: (id: unknown) => `Invalid Request: a request with id ${JSON.stringify(id)} is still in flight; use a new id for each request`,

  // HTTP admission
  shuttingDown: 'Service Unavailable: the server is shutting down',
  paramHeader: (tool: string, header: string, why: 'missing' | 'invalid-base64' | 'mismatch') =>
    `Bad Request: the request headers and body disagree for tool "${tool}": ${
      why === 'missing'
        ? `the arguments carry a value its ${header} header must repeat, and the header is missing`
        : why === 'invalid-base64'
          ? `${header} is wrapped in =?base64?...?= but its payload is not canonical Base64 of UTF-8 text`
          : `${header} does not carry the value the arguments give`
    }. Send ${header} with the argument's value (=?base64?...?= for text that is not plain ASCII)`,
  bodyTooLarge: (max: number) => `Payload Too Large: Request body must not exceed ${max} bytes`,
  badHost: (host: string) => `Bad Request: the Host header ${JSON.stringify(host)} is not a valid host[:port]`,
  hostRefused: (refusal: string, hostname: string) =>
    `${refusal}: not in allowedHosts (DNS rebinding protection). If the server is reached under this name, add it: listenHttp({ allowedHosts: ['${hostname}'] }) (or the same option of the handler); allowedHosts: false leaves the check to a proxy in front`,
  badMethod: (method: string | undefined) => `Bad Request: method ${method} is not supported`,
  internal: 'Internal server error',

  // Cloudflare Workers (app/workers-fetch.ts)
  workersLegacyRevision:
    'Bad Request: this server runs on Cloudflare Workers and serves the stateless 2026-07-28 revision only: 2025-11-25 sessions need one process that keeps them, and each request to a Worker may reach another isolate. Connect with a client that speaks 2026-07-28 (the official client with versionNegotiation: { mode: "auto" })',
  workersListen:
    'Invalid Request: subscriptions/listen is not served on Cloudflare Workers: the stream would stay open in one isolate, and changes made while serving requests in others would never reach it. List again to see changes',
  workersTask: (what: string) =>
    `Invalid Request: ${what} on Cloudflare Workers: a task outlives the request that starts it, and a Worker's isolates share no task store, so its tasks/get could reach an isolate that never heard of it (and ctx.waitUntil keeps work alive only 30 s after the response). Call an 'optional' task tool without declaring the tasks extension to run it inline, or serve task tools from Node.js with redisState`,
  workersNotAFactory: (found: string) =>
    `serveOnWorkers needs a function that makes the app, got ${found}. Fix: export default serveOnWorkers(() => createMcpApp(MyServer))`,
  notOnWorkers: (what: string, why: string) =>
    `${what} cannot run on Cloudflare Workers: ${why}. Fix: export default serveOnWorkers(() => createMcpApp(MyServer)) from the Worker's entry, built with armature build --target workers`,

  // 2025-11-25 sessions
  sessionNotFound: 'Session not found',
  sessionIdRequired: 'Bad Request: Mcp-Session-Id header is required',
  invalidJson: 'Parse error: Invalid JSON',
  initializeInBatch: 'Invalid Request: initialize must not be part of a JSON-RPC batch',
  notInitialized: 'Bad Request: Server not initialized (send initialize first, or the Mcp-Session-Id header)',
  batchOnRevision: (version: string) =>
    `Invalid Request: JSON-RPC batches are not supported on protocol revision ${version}; send one message per request`,
  httpRateLimited: (limit: number, windowMs: number, retryAfterSeconds: number) =>
    `Too Many Requests: this client sent more than ${limit} request${limit === 1 ? '' : 's'} in ${windowMs / 1000} s (rateLimit); retry in ${retryAfterSeconds} s`,
  failedAuthLimited: (limit: number, windowMs: number, retryAfterSeconds: number) =>
    `Too Many Requests: more than ${limit} request${limit === 1 ? '' : 's'} from this address failed authentication in ${windowMs / 1000} s (auth.failedAuthLimit); retry in ${retryAfterSeconds} s with a valid bearer token`,
  tooManySessions: (max: number) => `Service Unavailable: the server holds its maximum of ${max} sessions (maxSessions); retry later`,
  tooManyClientSessions: (max: number) =>
    `Too Many Requests: this client already holds ${max} sessions (maxSessionsPerClient); end unused ones with DELETE, or retry later`,
  // As the SDK's session transport words them (a session's GET stream; the self-check compares)
  standaloneStreamTaken: 'Conflict: Only one SSE stream is allowed per session',
  resumedStreamTaken: 'Conflict: Stream already has an active connection',
  unknownEventId: 'Invalid event ID format',
  replayFailed: 'Error replaying events',
  eventStreamNotFound: 'Event stream not found: resume with a Last-Event-ID from this session, or open a new stream without it',
  idInFlightInSession: (id: unknown) =>
    `Invalid Request: a request with id ${JSON.stringify(id)} is still in flight in this session; use a new id for each request`,

  // 2026-07-28 subscriptions/listen
  resourceNotFound: (uri: string) => `Resource not found: ${uri}`,
  listenTaskIdsInvalid:
    'Invalid params: notifications.taskIds must be a list of task ids (strings), as the tools/call that created each task answered',
  listenTasksUndeclared:
    'Task status notifications (notifications.taskIds) need the tasks extension: declare it in the request\'s client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {})',
  tooManyListenTasks: (max: number) =>
    `Invalid params: a listen stream may name at most ${max} tasks in taskIds (maxSubscriptionsPerSession)`,
  tooManyListenUris: (max: number) =>
    `Invalid params: a listen stream may name at most ${max} resources in resourceSubscriptions (maxSubscriptionsPerSession)`,
  listenUriTooLong: (max: number) =>
    `Invalid params: a resource URI in resourceSubscriptions is longer than ${max} characters (maxUriLength)`,
  tooManyListens: (max: number) =>
    `Subscription limit reached: the server's instances hold ${max} subscriptions/listen streams in all (maxListenStreams); retry later`,
  tooManyClientListens: (max: number) =>
    `Subscription limit reached: this client already holds ${max} subscriptions/listen streams (maxListenStreamsPerClient); close one before opening another`,

  // Endpoint options (thrown at start-up)
  eventStoreWithSharedState: (state: string) =>
    `McpApp.listenHttp/httpHandler: the eventStore option cannot be used with the ${state} state, which keeps the events of every instance's sessions itself; remove eventStore`,
  eventStoreWithoutLookup:
    'McpApp.listenHttp/httpHandler: the eventStore must implement getStreamIdForEventId(eventId), so a resumed stream can be checked against the session asking for it; add it, or use `eventStore: true` (InMemoryEventStore)',
} as const;
