import { randomUUID } from 'node:crypto';
import { ArmatureBuildError, type BuildProblem, McpError } from '@armature/core';
import { checkCallbackTarget, parseCallbackUrl } from './callback-url.js';
import { DeliveryScheduler } from './delivery-scheduler.js';
import { EgressPolicy } from './egress.js';
import { EventCatalog, type EventDeclaration } from './event-catalog.js';
import { EventStreams } from './event-streams.js';
import type { DeliveryRecord, EventsStore, SubscriptionRecord } from './events-store.js';
import { HostWindow } from './host-window.js';
import { MemoryEventsStore } from './memory-events-store.js';
import { EVENTS_BUILD_MESSAGES as B, EVENTS_MESSAGES as M } from './messages.js';
import type { PollParams, StreamParams, SubscribeParams, UnsubscribeParams, WebhookTarget } from './params.js';
import { signedHeaders } from './signature.js';
import { subscriptionId, verificationKey } from './subscription-key.js';
import { challengeReceiver } from './verification.js';
import { postWebhook } from './webhook-post.js';
import { isWebhookSecret } from './webhook-secret.js';

/** The draft's error codes (general-purpose, in the server range). */
export const EVENTS_ERROR_CODES = {
  invalidParams: -32602,
  notFound: -32011,
  forbidden: -32012,
  resourceExhausted: -32013,
  unsupported: -32014,
  callbackEndpointError: -32015,
} as const;

/** The most bytes of one delivered event body (the draft's SHOULD, 256 KiB). */
export const MAX_EVENT_BYTES = 256 * 1024;

export interface EventsOptions {
  /** Required: events are a draft (SEP-3415), their names and wire format may still change. */
  readonly experimental: true;
  /** The event types this server offers. */
  readonly events: readonly EventDeclaration[];
  /** Where subscriptions and pending deliveries live. Default: in memory (one instance). `redisEventsStore()` shares them. */
  readonly store?: EventsStore;
  /** Addresses or CIDR ranges deliveries may reach although not public (loopback, private, link-local). Default none. */
  readonly egress?: { readonly allow?: readonly string[] };
  /** Accept webhook subscriptions from unauthenticated callers (all then share one principal). Default false. */
  readonly anonymousWebhooks?: boolean;
  /** TTL granted when the client suggests none. Default 1 hour. */
  readonly defaultTtlMs?: number;
  /** Shortest TTL granted (shorter suggestions are raised). Default 1 minute. */
  readonly minTtlMs?: number;
  /** Longest TTL granted (longer suggestions, and requests for no expiry, are lowered). Default 24 hours. */
  readonly maxTtlMs?: number;
  /** Waits before each retry of a failed delivery. Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (Standard Webhooks' schedule). */
  readonly retryDelaysMs?: readonly number[];
  /** How long one delivery attempt (or challenge) may take. Default 10 s. */
  readonly timeoutMs?: number;
  /** How often the store is swept for deliveries another (perhaps dead) instance left. Default 5 s. */
  readonly sweepMs?: number;
  /** How long a rotated-out secret still signs deliveries next to the new one. Default 5 minutes. */
  readonly secretGraceMs?: number;
  /** Most verification challenges POSTed to one host per minute. Default 10. */
  readonly challengesPerHostPerMinute?: number;
  /** Most live webhook subscriptions one caller may hold. Default 100. */
  readonly maxSubscriptionsPerCaller?: number;
  /** How long `events/poll` can still read an emitted event. Default 10 minutes. */
  readonly pollRetentionMs?: number;
  /** Most events kept per event type for `events/poll`. Default 1,000. */
  readonly pollMaxEvents?: number;
  /** The `nextPollMs` told to polling clients. Default 5,000. */
  readonly pollIntervalMs?: number;
  /** Most `events/stream` requests one caller may hold open at once. Default 10. */
  readonly maxStreamsPerCaller?: number;
  /** Most `events/stream` requests open on this instance at once. Default 1,000. */
  readonly maxStreams?: number;
  /** A stream quiet for this long gets a heartbeat (the draft: at least every 30 s). Default 15,000. */
  readonly streamHeartbeatMs?: number;
  /** How often streams read the shared log for events emitted by other instances. Default 1,000. */
  readonly streamCheckMs?: number;
}

/** The channel of one `events/stream` request: its id, its signal, and its way to notify the client. */
export interface StreamChannel {
  readonly requestId: string | number;
  readonly signal: AbortSignal;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
}

const NUMBER_DEFAULTS = {
  defaultTtlMs: 3_600_000,
  minTtlMs: 60_000,
  maxTtlMs: 86_400_000,
  timeoutMs: 10_000,
  sweepMs: 5_000,
  secretGraceMs: 300_000,
  maxSubscriptionsPerCaller: 100,
  challengesPerHostPerMinute: 10,
  pollRetentionMs: 600_000,
  pollMaxEvents: 1_000,
  pollIntervalMs: 5_000,
  maxStreamsPerCaller: 10,
  maxStreams: 1_000,
  streamHeartbeatMs: 15_000,
  streamCheckMs: 1_000,
};

const DEFAULTS = {
  ...NUMBER_DEFAULTS,
  retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as readonly number[],
};

/** The delivery modes every event type offers (`events/list`, and the extension's settings). */
export const DELIVERY_MODES: readonly string[] = ['webhook', 'push', 'poll'];

/** Most events one `events/poll` answer (or one read of a stream) carries. */
const MAX_POLL_PAGE = 100;

const ANONYMOUS = '\u0000anonymous';

/** What `emit` did: the event's id and how many subscriptions it was queued for. */
export interface EmitResult {
  readonly eventId: string;
  readonly deliveries: number;
}

/**
 * The events of one app: the catalog, webhook subscriptions with their TTLs, the verification
 * challenge, and the delivery scheduler. Checks its options at construction (ArmatureBuildError,
 * every problem at once).
 */
export class EventsRuntime {
  readonly catalog: EventCatalog;
  readonly store: EventsStore;
  readonly egress: EgressPolicy;
  private readonly settings: typeof DEFAULTS & { anonymousWebhooks: boolean };
  private readonly scheduler: DeliveryScheduler;
  private readonly challenges: HostWindow;
  private readonly streams: EventStreams;
  private running = false;
  private stopped?: Promise<void>;

  constructor(options: EventsOptions) {
    const problems: BuildProblem[] = [];
    const add = (definition: { code: string; fix: (...a: string[]) => string }, message: string, ...fixArgs: string[]) =>
      problems.push({ code: definition.code, where: 'events', message, fix: definition.fix(...fixArgs) });
    if (options?.experimental !== true) add(B.notExperimental, B.notExperimental.message());
    this.catalog = new EventCatalog(Array.isArray(options?.events) ? options.events : [], problems);
    const allow = options?.egress?.allow ?? [];
    for (const entry of allow)
      if (EgressPolicy.parseEntry(String(entry)) === undefined) add(B.badEgressAllow, B.badEgressAllow.message(String(entry)));
    const settings = { ...DEFAULTS, anonymousWebhooks: options?.anonymousWebhooks === true };
    for (const key of Object.keys(NUMBER_DEFAULTS) as (keyof typeof NUMBER_DEFAULTS)[]) {
      const value = options?.[key];
      if (value === undefined) continue;
      if (Number.isSafeInteger(value) && value > 0) settings[key] = value;
      else add(B.badNumberOption, B.badNumberOption.message(key, value), key);
    }
    if (options?.retryDelaysMs !== undefined) {
      const delays = options.retryDelaysMs;
      if (Array.isArray(delays) && delays.every((d) => Number.isSafeInteger(d) && d >= 0)) settings.retryDelaysMs = [...delays];
      else add(B.badNumberOption, B.badNumberOption.message('retryDelaysMs', delays), 'each of retryDelaysMs');
    }
    if (!(settings.minTtlMs <= settings.defaultTtlMs && settings.defaultTtlMs <= settings.maxTtlMs)) {
      add(
        B.badNumberOption,
        B.badNumberOption.message('minTtlMs/defaultTtlMs/maxTtlMs', [settings.minTtlMs, settings.defaultTtlMs, settings.maxTtlMs]),
        'the TTLs',
      );
    }
    if (problems.length > 0) throw new ArmatureBuildError(problems, 'Armature cannot serve these events', 'in events({...})');
    this.settings = settings;
    this.egress = new EgressPolicy(allow);
    this.challenges = new HostWindow(settings.challengesPerHostPerMinute, 60_000);
    this.store = options.store ?? new MemoryEventsStore();
    this.streams = new EventStreams(this.store, {
      heartbeatMs: settings.streamHeartbeatMs,
      checkMs: settings.streamCheckMs,
      maxPerCaller: settings.maxStreamsPerCaller,
      maxTotal: settings.maxStreams,
    });
    this.scheduler = new DeliveryScheduler(
      this.store,
      (record) => this.attempt(record),
      {
        retryDelaysMs: settings.retryDelaysMs,
        leaseMs: settings.timeoutMs + 5_000,
        sweepMs: settings.sweepMs,
        concurrency: 16,
      },
      (record, reason) =>
        process.stderr.write(`[armature] ${M.deliveryDropped(record.subscriptionId, record.webhookId, record.attempts, reason)}\n`),
    );
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.scheduler.start();
  }

  /** Stops delivering (attempts in flight finish) and closes the store, started or not. Once. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.running = false;
      this.streams.stop();
      await this.scheduler.stop();
      await this.store.close();
    })();
    return this.stopped;
  }

  /** The `events/list` result. */
  list(): { events: Record<string, unknown>[] } {
    return { events: this.catalog.list(DELIVERY_MODES) };
  }

  /**
   * `events/poll`: the events emitted after `cursor` that match the arguments (null: none, and the
   * cursor of now). A cursor this server no longer covers gives `truncated: true` and what is left.
   */
  async poll(params: PollParams): Promise<Record<string, unknown>> {
    const { name, cursor, maxEvents, maxAgeMs } = params;
    const entry = this.entryOf(name);
    const args = await this.argumentsOf(entry, params.arguments);
    const page = await this.store.readLog(name, cursor ?? null, Math.min(maxEvents ?? MAX_POLL_PAGE, MAX_POLL_PAGE));
    if (!page) throw invalid(M.badCursor());
    const floor = maxAgeMs === undefined ? undefined : Date.now() - maxAgeMs;
    const match = entry.declaration.match;
    let truncated = page.truncated;
    const events = [];
    for (const body of page.bodies) {
      const { cursor: _none, ...occurrence } = JSON.parse(body) as { timestamp: string; data: object; cursor: null };
      if (floor !== undefined && Date.parse(occurrence.timestamp) < floor) {
        truncated = true;
        continue;
      }
      if (match === undefined || match(occurrence.data, args)) events.push(occurrence);
    }
    return { events, cursor: page.cursor, truncated, hasMore: page.hasMore, nextPollMs: this.settings.pollIntervalMs };
  }

  /**
   * `events/stream`: one push subscription, served until the request is cancelled, its client goes
   * away or the runtime stops, then answered `{ _meta: {} }`. A bad request is refused before
   * anything is sent; a caller at its limit gets -32013 (`data.limit: 'streams'`).
   */
  async stream(principal: string | undefined, params: StreamParams, channel: StreamChannel): Promise<Record<string, unknown>> {
    if (!this.running) throw new McpError(EVENTS_ERROR_CODES.unsupported, M.streamsClosed(), { feature: 'deliveryMode', value: 'push' });
    const entry = this.entryOf(params.name);
    const args = await this.argumentsOf(entry, params.arguments);
    const who = principal ?? ANONYMOUS;
    const refusal = this.streams.refusal(who);
    if (refusal) {
      throw new McpError(EVENTS_ERROR_CODES.resourceExhausted, M.tooManyStreams(refusal.max, refusal.perCaller), {
        limit: refusal.limit,
        max: refusal.max,
      });
    }
    const release = this.streams.hold(who);
    try {
      const from = params.cursor ?? null;
      const first = await this.store.readLog(entry.declaration.name, from, MAX_POLL_PAGE);
      if (!first) throw invalid(M.badCursor());
      const match = entry.declaration.match;
      await this.streams.serve({
        name: entry.declaration.name,
        matches: (data) => {
          try {
            return match === undefined || match(data, args);
          } catch (error) {
            process.stderr.write(`[armature] ${M.matchThrew(entry.declaration.name, error)}\n`);
            throw error;
          }
        },
        matchFailed: (count) => M.matchFailed(entry.declaration.name, count),
        requestId: channel.requestId,
        first,
        from,
        floor: from !== null && params.maxAgeMs !== undefined ? Date.now() - params.maxAgeMs : undefined,
        signal: channel.signal,
        notify: (method, notification) => channel.notify(method, notification),
      });
      return { _meta: {} };
    } finally {
      release();
    }
  }

  /** `events/subscribe`: creates or refreshes a webhook subscription (the draft's idempotent upsert). */
  async subscribe(principal: string | undefined, params: SubscribeParams): Promise<Record<string, unknown>> {
    const { entry, args, url, who } = await this.resolve(principal, params, true);
    const secret = params.delivery.secret;
    if (!isWebhookSecret(secret)) throw invalid(M.badSecret());
    const ttl = params.ttlMs;
    const id = subscriptionId(who, url, entry.declaration.name, args);
    const now = Date.now();
    const existing = await this.store.subscription(id, now);
    const max = this.settings.maxSubscriptionsPerCaller;
    // Checked before the challenge: a caller at its limit makes the server POST nowhere.
    if (existing === undefined && (await this.store.countOf(who, now)) >= max) {
      throw new McpError(EVENTS_ERROR_CODES.resourceExhausted, M.tooManySubscriptions(max), { limit: 'subscriptions', max });
    }
    const verified = verificationKey(who, url);
    if (!(await this.store.isVerified(verified, now))) {
      const host = new URL(url).host;
      if (!this.challenges.take(host, now)) {
        throw new McpError(EVENTS_ERROR_CODES.resourceExhausted, M.tooManyChallenges(host), {
          limit: 'challenges',
          max: this.settings.challengesPerHostPerMinute,
        });
      }
      const failure = await challengeReceiver({ url, secret, subscriptionId: id }, this.egress, this.settings.timeoutMs);
      if (failure) throw new McpError(EVENTS_ERROR_CODES.callbackEndpointError, M.challengeFailed(failure), { reason: failure });
    }
    const granted = Math.min(
      this.settings.maxTtlMs,
      Math.max(this.settings.minTtlMs, typeof ttl === 'number' ? ttl : this.settings.defaultTtlMs),
    );
    const expiresAt = now + granted;
    await this.store.markVerified(verified, expiresAt);
    const rotated = existing !== undefined && existing.secrets[0] !== secret;
    const record: SubscriptionRecord = {
      id,
      principal: who,
      url,
      name: entry.declaration.name,
      arguments: args,
      secrets: rotated ? [secret, existing.secrets[0] as string] : [secret],
      previousSecretUntil: rotated ? now + this.settings.secretGraceMs : 0,
      expiresAt,
    };
    await this.store.saveSubscription(record);
    const status = existing === undefined ? undefined : await this.store.status(id);
    const answer = { id, refreshBefore: new Date(expiresAt).toISOString(), cursor: null, truncated: false };
    return status === undefined ? answer : { ...answer, deliveryStatus: { active: true, ...status } };
  }

  /** `events/unsubscribe`: removes the caller's subscription with this key. */
  async unsubscribe(principal: string | undefined, params: UnsubscribeParams): Promise<Record<string, never>> {
    const { entry, args, url, who } = await this.resolve(principal, params, false);
    const removed = await this.store.removeSubscription(subscriptionId(who, url, entry.declaration.name, args));
    if (!removed) throw new McpError(EVENTS_ERROR_CODES.notFound, M.noSubscription(entry.declaration.name, url), { kind: 'subscription' });
    return {};
  }

  /** The checks subscribe and unsubscribe share: the event, its arguments, the callback URL, the caller. */
  private async resolve(
    principal: string | undefined,
    params: { name: string; arguments?: object; delivery: WebhookTarget },
    forSubscribe: boolean,
  ) {
    const entry = this.entryOf(params.name);
    const { mode, url: rawUrl } = params.delivery;
    if (mode !== undefined && mode !== 'webhook') {
      throw new McpError(EVENTS_ERROR_CODES.unsupported, M.modeNotServed(mode), { feature: 'deliveryMode', value: mode });
    }
    if (principal === undefined && !this.settings.anonymousWebhooks) throw new McpError(EVENTS_ERROR_CODES.forbidden, M.noPrincipal());
    const parsed = parseCallbackUrl(rawUrl);
    if (!parsed.ok) throw invalid(parsed.message);
    // Unsubscribing sends nothing: it needs the key, not a reachable target.
    const checked = forSubscribe ? await checkCallbackTarget(parsed.url, this.egress) : parsed;
    if (!checked.ok) throw invalid(checked.message);
    const args = await this.argumentsOf(entry, params.arguments);
    return { entry, args, url: checked.url, who: principal ?? ANONYMOUS };
  }

  /** The declared event named `name` (-32011 when there is none). */
  private entryOf(name: string) {
    const entry = this.catalog.entries.get(name);
    if (!entry) throw new McpError(EVENTS_ERROR_CODES.notFound, M.unknownEvent(name, this.catalog.names), { kind: 'event' });
    return entry;
  }

  /** The subscription's arguments checked against the event's DTO (-32602 naming each issue). */
  private async argumentsOf(entry: Parameters<EventCatalog['checkArguments']>[0], given: object | undefined) {
    const args = await this.catalog.checkArguments(entry, given);
    if (!args.ok) throw invalid(M.badArguments(entry.declaration.name, args.issues));
    return args.value;
  }

  /**
   * Validates the payload against the event's DTO, and queues one delivery per matching live
   * subscription. Throws when the event is unknown, the payload invalid, or the body over 256 KiB.
   */
  async emit(name: string, payload: object): Promise<EmitResult> {
    if (!this.running) throw new Error(M.notStarted());
    const entry = this.catalog.entries.get(name);
    if (!entry) throw new TypeError(M.emitUnknown(name, this.catalog.names));
    await this.catalog.checkPayload(entry, payload);
    const eventId = `evt_${randomUUID()}`;
    const body = JSON.stringify({ eventId, name, timestamp: new Date().toISOString(), data: payload, cursor: null });
    const bytes = Buffer.byteLength(body);
    if (bytes > MAX_EVENT_BYTES) throw new RangeError(M.tooLarge(name, bytes, MAX_EVENT_BYTES));
    const now = Date.now();
    await this.store.appendToLog(name, body, now, { maxAgeMs: this.settings.pollRetentionMs, maxEvents: this.settings.pollMaxEvents });
    const match = entry.declaration.match;
    const subscriptions = (await this.store.subscriptionsTo(name, now)).filter((s) => match === undefined || match(payload, s.arguments));
    const deliveries: DeliveryRecord[] = subscriptions.map((s) => ({
      id: randomUUID(),
      subscriptionId: s.id,
      webhookId: eventId,
      body,
      attempts: 0,
    }));
    await this.store.enqueue(deliveries, now);
    if (deliveries.length > 0) this.scheduler.wake();
    this.streams.wake(name);
    return { eventId, deliveries: deliveries.length };
  }

  /** One delivery attempt: signed afresh, to the subscription as it is now (dropped if it expired or was removed). */
  private async attempt(record: DeliveryRecord) {
    const now = Date.now();
    const subscription = await this.store.subscription(record.subscriptionId, now);
    if (!subscription) return { outcome: 'failed' as const, retryable: false, reason: 'the subscription expired or was removed' };
    const secrets = subscription.previousSecretUntil > now ? subscription.secrets : subscription.secrets.slice(0, 1);
    const headers = signedHeaders(secrets, record.webhookId, subscription.id, record.body, new Date(now));
    const outcome = await postWebhook(subscription.url, headers, record.body, {
      policy: this.egress,
      timeoutMs: this.settings.timeoutMs,
      maxResponseBytes: 4_096,
    });
    await this.store.recordAttempt(subscription.id, Date.now(), outcome.ok ? undefined : outcome.category, subscription.expiresAt);
    return outcome.ok
      ? { outcome: 'delivered' as const }
      : { outcome: 'failed' as const, retryable: outcome.retryable, reason: `${outcome.category} (${outcome.detail})` };
  }
}

function invalid(message: string): McpError {
  return new McpError(EVENTS_ERROR_CODES.invalidParams, message);
}
