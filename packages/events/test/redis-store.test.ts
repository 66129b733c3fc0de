import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RedisServer } from '@armature/test-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisEventsStore } from '../src/redis-events-store.js';
import { newSecret, Receiver } from './support/receiver.js';
import { aliceSubscription } from './support/subscription.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/instance.mjs', import.meta.url));

/** One instance: a real Node process on the shared Redis store, driven line by line. */
class Instance {
  private readonly answers: ((value: Record<string, unknown>) => void)[] = [];
  private constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => this.answers.shift()?.(JSON.parse(line)));
  }

  static async start(name: string, redisUrl: string, keyPrefix: string): Promise<Instance> {
    const child = spawn(process.execPath, [FIXTURE], {
      env: { ...process.env, INSTANCE: name, REDIS_URL: redisUrl, KEY_PREFIX: keyPrefix },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const instance = new Instance(child);
    await instance.next(45_000);
    return instance;
  }

  private next(ms = 20_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the instance did not answer')), ms);
      this.answers.push((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
  }

  async send(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = this.next();
    this.child.stdin?.write(`${JSON.stringify(command)}\n`);
    const value = await answer;
    if (value.error) throw new Error(String(value.error));
    return value.ok as Record<string, unknown>;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill(signal);
    await exited;
  }
}

describe('events on a shared Redis store', () => {
  let redis: RedisServer;
  let receiver: Receiver;
  const instances: Instance[] = [];
  beforeAll(async () => {
    redis = await RedisServer.start();
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    for (const instance of instances) await instance.kill('SIGKILL');
    await receiver?.stop();
    await redis?.dispose();
  });

  it('delivers the event a dead instance had in flight, and the next event of the subscription it took', async () => {
    const prefix = `t${Date.now()}:`;
    const secret = newSecret();
    receiver.secret = secret;
    // The first delivery hangs: the instance that took it dies holding it.
    receiver.behaviour = (_r, response, index) => {
      if (index > 0) response.writeHead(200).end();
    };
    const a = await Instance.start('a', redis.url, prefix);
    instances.push(a);
    await a.send({ op: 'subscribe', params: { name: 'incident.created', delivery: { url: receiver.url, secret } } });
    const first = await a.send({ op: 'emit', payload: { incidentId: 'INC-1', severity: 'P1' } });
    expect(first.deliveries).toBe(1);
    await receiver.waitFor(1);
    await a.kill('SIGKILL');

    const b = await Instance.start('b', redis.url, prefix);
    instances.push(b);
    await receiver.waitFor(2, 30_000);
    expect(receiver.deliveries[1]?.headers['webhook-id']).toBe(first.eventId);

    const second = await b.send({ op: 'emit', payload: { incidentId: 'INC-2', severity: 'P2' } });
    expect(second.deliveries).toBe(1);
    await receiver.waitFor(3);
    expect(receiver.verified.map((v) => v.eventId)).toEqual([first.eventId, first.eventId, second.eventId]);
    expect(receiver.challenges).toHaveLength(1);
  }, 90_000);

  it("counts a caller's subscriptions, and keeps a poll log that reports a gap once entries were dropped", async () => {
    const store = new RedisEventsStore({ url: redis.url, keyPrefix: `log${Date.now()}:` });
    try {
      const now = Date.now();
      const record = aliceSubscription(now);
      await store.saveSubscription({ ...record, id: 's1' });
      await store.saveSubscription({ ...record, id: 's2' });
      await store.saveSubscription({ ...record, id: 's3', principal: 'bob' });
      expect(await store.countOf('alice', now)).toBe(2);
      await store.removeSubscription('s1');
      expect(await store.countOf('alice', now)).toBe(1);
      await store.recordAttempt('s2', now, 'http_5xx', now + 60_000);
      expect(await store.status('s2')).toEqual({ lastDeliveryAt: null, lastError: 'http_5xx', failedSince: new Date(now).toISOString() });
      await store.recordAttempt('s2', now + 1, undefined, now + 60_000);
      expect(await store.status('s2')).toEqual({ lastDeliveryAt: new Date(now + 1).toISOString(), lastError: null });

      const limits = { maxAgeMs: 60_000, maxEvents: 2 };
      const start = await store.readLog('e', null, 10);
      await store.appendToLog('e', 'one', now, limits);
      const first = await store.readLog('e', start?.cursor ?? null, 10);
      expect(first).toMatchObject({ bodies: ['one'], truncated: false });
      for (const body of ['two', 'three', 'four']) await store.appendToLog('e', body, now, limits);
      const second = await store.readLog('e', first?.cursor ?? null, 1);
      expect(second).toMatchObject({ bodies: ['three'], truncated: true, hasMore: true });
      expect(await store.readLog('e', second?.cursor ?? null, 10)).toMatchObject({ bodies: ['four'], truncated: false, hasMore: false });
      expect(await store.readLog('e', 'garbage', 10)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('leases a claimed delivery: nobody else takes it until the lease ends', async () => {
    const store = new RedisEventsStore({ url: redis.url, keyPrefix: `lease${Date.now()}:` });
    const other = new RedisEventsStore({ url: redis.url, keyPrefix: (store as unknown as { prefix: string }).prefix });
    try {
      const now = Date.now();
      await store.enqueue([{ id: 'd1', subscriptionId: 's', webhookId: 'evt_1', body: '{}', attempts: 0 }], now);
      expect(await store.claimDue(now, 1_000, 10)).toHaveLength(1);
      expect(await other.claimDue(now + 500, 1_000, 10)).toHaveLength(0);
      expect(await other.claimDue(now + 1_001, 1_000, 10)).toEqual([expect.objectContaining({ id: 'd1' })]);
      await other.finish('d1');
      expect(await store.nextDue()).toBeUndefined();
    } finally {
      await store.close();
      await other.close();
    }
  });
});
