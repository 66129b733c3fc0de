import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { EgressPolicy } from '../src/egress.js';
import { signedHeaders } from '../src/signature.js';
import { canonicalJson, subscriptionId } from '../src/subscription-key.js';
import { postWebhook } from '../src/webhook-post.js';
import { isWebhookSecret } from '../src/webhook-secret.js';
import { newSecret } from './support/receiver.js';

describe('webhook secrets', () => {
  it('accepts whsec_ with the base64 of 24 to 64 bytes and nothing else', () => {
    const of = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString('base64')}`;
    expect([of(24), of(32), of(64)].every(isWebhookSecret)).toBe(true);
    for (const bad of [
      of(23),
      of(65),
      'whsec_',
      'whsec_!!!!',
      Buffer.alloc(32).toString('base64'),
      `whsec_${'A'.repeat(43)}`,
      42,
      undefined,
    ]) {
      expect(isWebhookSecret(bad), String(bad)).toBe(false);
    }
  });
});

describe('signatures', () => {
  const body = JSON.stringify({ eventId: 'evt_1', name: 'x', data: { a: 1 } });

  it('verify with the reference Standard Webhooks verifier, and carry the subscription id', () => {
    const secret = newSecret();
    const headers = signedHeaders([secret], 'evt_1', 'sub_1', body, new Date());
    expect(headers['X-MCP-Subscription-Id']).toBe('sub_1');
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fail verification when the body, the id, the timestamp or the secret is tampered with', () => {
    const secret = newSecret();
    const headers = signedHeaders([secret], 'evt_1', 'sub_1', body, new Date());
    const verify =
      (b: string, h: Record<string, string>, s = secret) =>
      () =>
        new Webhook(s).verify(b, h);
    expect(verify(body.replace('1}', '2}'), headers)).toThrow();
    expect(verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    expect(verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) })).toThrow();
    expect(verify(body, headers, newSecret())).toThrow();
  });

  it('sign with both secrets while one is rotated out, each verifying alone', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const headers = signedHeaders([current, previous], 'evt_1', 'sub_1', body, new Date());
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
  });
});

describe('subscription ids', () => {
  it('are the same for equal arguments in any key order, and differ by principal, URL, name or arguments', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
    const id = subscriptionId('alice', 'https://h.example/x', 'e', { a: 1, b: 2 });
    expect(subscriptionId('alice', 'https://h.example/x', 'e', { b: 2, a: 1 })).toBe(id);
    for (const other of [
      subscriptionId('bob', 'https://h.example/x', 'e', { a: 1, b: 2 }),
      subscriptionId('alice', 'https://h.example/y', 'e', { a: 1, b: 2 }),
      subscriptionId('alice', 'https://h.example/x', 'f', { a: 1, b: 2 }),
      subscriptionId('alice', 'https://h.example/x', 'e', { a: 1, b: 3 }),
    ]) {
      expect(other).not.toBe(id);
    }
  });
});

describe('egress policy', () => {
  it('refuses loopback, private, link-local and other non-public addresses by default', () => {
    const policy = new EgressPolicy();
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '2002:7f00:1::1',
      'not an address',
    ]) {
      expect(policy.permits(address), address).toBe(false);
    }
    expect(policy.permits('93.184.216.34')).toBe(true);
    expect(policy.permits('2606:4700::1111')).toBe(true);
  });

  it('permits what the app lists, by address or range, and nothing next to it', () => {
    const policy = new EgressPolicy(['127.0.0.1', '10.0.0.0/8']);
    expect(policy.permits('127.0.0.1')).toBe(true);
    expect(policy.permits('::ffff:127.0.0.1')).toBe(true);
    expect(policy.permits('10.200.0.1')).toBe(true);
    expect(policy.permits('127.0.0.2')).toBe(false);
    expect(policy.permits('192.168.0.1')).toBe(false);
    expect(EgressPolicy.parseEntry('localhost')).toBeUndefined();
  });

  it('refuses at connect time a host name that resolves to a private address', async () => {
    const hits: string[] = [];
    const server = createServer((request, response) => {
      hits.push(request.url ?? '');
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      // `localhost` resolves to loopback: refused although the URL names no address.
      const outcome = await postWebhook(`https://localhost:${port}/x`, {}, '{}', {
        policy: new EgressPolicy(),
        timeoutMs: 5_000,
        maxResponseBytes: 1_024,
      });
      expect(outcome).toMatchObject({ ok: false, category: 'connection_refused' });
      expect(hits).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('postWebhook against hostile receivers', () => {
  const servers: ReturnType<typeof createServer>[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });
  const serve = async (handler: Parameters<typeof createServer>[1]) => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const allowed = { policy: new EgressPolicy(['127.0.0.1']), timeoutMs: 1_500, maxResponseBytes: 1_024 };

  it('gives up on a receiver that hangs, within the timeout', async () => {
    const url = await serve(() => undefined);
    const started = Date.now();
    const outcome = await postWebhook(url, {}, '{}', allowed);
    expect(outcome).toMatchObject({ ok: false, category: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('gives up on a receiver that sends headers and then trickles its body forever', async () => {
    const url = await serve((_q, response) => {
      response.writeHead(200);
      response.write('{');
    });
    expect(await postWebhook(url, {}, '{}', allowed)).toMatchObject({ ok: false, category: 'timeout' });
  });

  it('does not follow a redirect, even to an address the app allows', async () => {
    const hits: string[] = [];
    const target = await serve((request, response) => {
      hits.push(request.url ?? '');
      response.end();
    });
    const url = await serve((_q, response) => response.writeHead(307, { location: `${target}/internal` }).end());
    const outcome = await postWebhook(url, {}, '{}', allowed);
    expect(outcome).toMatchObject({ ok: false, category: 'http_4xx' });
    expect(hits).toEqual([]);
  });

  it('refuses a private address literal unless allowed, and plain http to an address not listed', async () => {
    const url = await serve((_q, response) => response.end());
    expect(await postWebhook(url, {}, '{}', { ...allowed, policy: new EgressPolicy() })).toMatchObject({
      ok: false,
      category: 'connection_refused',
    });
    expect(await postWebhook(url, {}, '{}', allowed)).toMatchObject({ ok: true });
  });

  it('does not retry a 413, retries a 500, and reads no more of an answer than its limit', async () => {
    const tooLarge = await serve((_q, response) => response.writeHead(413).end());
    expect(await postWebhook(tooLarge, {}, '{}', allowed)).toMatchObject({ ok: false, category: 'http_4xx', retryable: false });
    const failing = await serve((_q, response) => response.writeHead(500).end());
    expect(await postWebhook(failing, {}, '{}', allowed)).toMatchObject({ ok: false, category: 'http_5xx', retryable: true });
    const huge = await serve((_q, response) => response.end('x'.repeat(1_000_000)));
    const outcome = await postWebhook(huge, {}, '{}', allowed);
    expect(outcome.ok && outcome.body.length).toBe(1_024);
  });
});
