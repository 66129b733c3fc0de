// Every text @armature/events shows a developer, a client or a log, formatted here only.

/** A caller's or a receiver's value quoted in a message: as JSON (control characters escaped), cut short. */
export function shown(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value);
}

/** Start-up problems of `events({...})`: code, what was found, and the fix. */
export const EVENTS_BUILD_MESSAGES = {
  notExperimental: {
    code: 'ARM170',
    title: 'events() was called without experimental: true',
    message: () => 'events (SEP-3415) is a draft: its method names and wire format may still change, so it is opt-in',
    fix: () => 'events({ experimental: true, events: [...] }), and expect changes when the SEP moves',
  },
  badEventName: {
    code: 'ARM171',
    title: 'an event name is not 1-128 characters of A-Z a-z 0-9 _ . - / or is declared twice',
    message: (name: string, why: string) => `the event name ${shown(name)} ${why}`,
    fix: () => "{ name: 'incident.created', description: '...', payload: IncidentPayload }, each name once",
  },
  badPayloadDto: {
    code: 'ARM172',
    title: 'an event has no description, or its payload or arguments is not a usable DTO class',
    message: (what: string) => what,
    fix: () =>
      "{ name: 'incident.created', description: 'Fires when ...', payload: IncidentPayload } with IncidentPayload a class whose properties carry class-validator decorators",
  },
  badEgressAllow: {
    code: 'ARM173',
    title: 'an entry of egress.allow is not an IP address or CIDR range',
    message: (entry: string) => `egress.allow holds ${shown(entry)}, which is neither an IP address nor a CIDR range`,
    fix: () =>
      "egress: { allow: ['127.0.0.1', '10.0.0.0/8'] } (addresses or ranges, never host names: they are checked on the resolved address)",
  },
  badNumberOption: {
    code: 'ARM174',
    title: 'a time, count or size option of events() is not a positive whole number, or the TTLs are out of order',
    message: (option: string, value: unknown) => `${option} is ${JSON.stringify(value)}`,
    fix: (option: string) =>
      `give ${option} a positive whole number (milliseconds for a time; minTtlMs <= defaultTtlMs <= maxTtlMs), or leave it out for the default`,
  },
} as const;

/** Errors a client reads in answer to events/* requests, and errors `emit` throws. */
export const EVENTS_MESSAGES = {
  unknownEvent: (name: string, known: readonly string[]) =>
    `No event named ${shown(name)}. Call events/list to see the events of this server${known.length > 0 ? ` (${known.slice(0, 10).join(', ')})` : ''}.`,
  badArguments: (name: string, issues: string) =>
    `The arguments of event ${shown(name)} are invalid: ${issues}. Give arguments matching its inputSchema from events/list.`,
  modeNotServed: (mode: string) =>
    `delivery.mode ${shown(mode)} is not served by events/subscribe, which delivers by webhook. For push, open events/stream; to poll, call events/poll.`,
  tooManyStreams: (max: number, perCaller: boolean) =>
    perCaller
      ? `This caller already holds ${max} open events/stream requests, the most this server allows. Cancel one (notifications/cancelled, or close its HTTP request) before opening another, or poll with events/poll.`
      : `This server already serves ${max} open events/stream requests, its limit. Try again later, or poll with events/poll.`,
  matchThrew: (name: string, error: unknown) =>
    `events: the match function of ${shown(name)} threw on an event for a stream, which skipped it: ${error instanceof Error ? error.message : String(error)}`,
  matchFailed: (name: string, count: number) =>
    `${count} event(s) of ${shown(name)} were skipped: the server's match function failed on them. The stream goes on; the server's developer can see why in its logs.`,
  streamsClosed: () => 'The events extension is not running (it starts with the app and stops when it closes): no stream can be opened.',
  badSecret: () =>
    'delivery.secret must be a Standard Webhooks secret: "whsec_" followed by the base64 of 24 to 64 random bytes. Generate one per subscription from a secure random source.',
  badUrl: (url: string) => `delivery.url ${shown(url)} is not an absolute https:// URL. Give the https address of your webhook receiver.`,
  insecureUrl: (url: string) =>
    `delivery.url ${shown(url)} is not https: events and the secret would travel in cleartext. Give an https:// address (plain http is accepted only to a target the server's egress.allow lists).`,
  credentialsInUrl: () => 'delivery.url must not carry a user name or password. Authenticate deliveries with delivery.secret.',
  refusedTarget: (url: string, address: string) =>
    `delivery.url ${shown(url)} resolves to ${address}, a loopback, private, link-local or otherwise non-public address this server does not send to. Give a publicly reachable https receiver.`,
  unresolvable: (url: string) => `delivery.url ${shown(url)} names a host that does not resolve. Check the address.`,
  noPrincipal: () =>
    'Webhook subscriptions need an authenticated caller (they are keyed on who subscribed). Connect with credentials; the server enables anonymous webhook subscriptions only with events({ anonymousWebhooks: true }).',
  noSubscription: (name: string, url: string) =>
    `No webhook subscription of this caller for event ${shown(name)} at ${shown(url)} with these arguments. It may have expired, or been made with other arguments.`,
  tooManySubscriptions: (max: number) =>
    `This caller already holds ${max} webhook subscriptions, the most this server allows. Unsubscribe from some (events/unsubscribe), or let them expire.`,
  badCursor: () =>
    'cursor is not one this server gave out. Poll with cursor: null to start from now, then pass back the cursor of each answer.',
  tooManyChallenges: (host: string) =>
    `Too many new webhook receivers at ${shown(host)} in the last minute: their verification is paused. Try again in a minute.`,
  challengeFailed: (reason: string) =>
    `The webhook receiver did not pass the verification challenge (${reason}). It must answer the signed {"type":"verification","challenge":"..."} POST with a 2xx and the body {"challenge":"<the same value>"}.`,
  tooLarge: (name: string, bytes: number, limit: number) =>
    `Event ${shown(name)} is ${bytes} bytes as delivered, over the limit of ${limit} bytes. Send a smaller payload (an id the agent can fetch with a tool, not the whole record).`,
  badPayload: (name: string, issues: string) => `The payload of event ${shown(name)} does not match its DTO: ${issues}`,
  emitUnknown: (name: string, known: readonly string[]) =>
    `emit: no event named ${shown(name)} is declared. Declare it in events({ events: [{ name: ${JSON.stringify(name)}, ... }] }); declared: ${known.join(', ') || 'none'}.`,
  notStarted: () => 'emit: the events extension is not running yet (it starts with the app) or has been stopped.',
  deliveryDropped: (subscriptionId: string, webhookId: string, attempts: number, reason: string) =>
    `events: gave up delivering ${webhookId} to subscription ${subscriptionId} after ${attempts} attempt(s): ${reason}`,
} as const;
