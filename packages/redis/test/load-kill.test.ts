import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { type Instance, stopInstance, useCluster } from './support/cluster.js';

const cluster = useCluster(['a', 'b', 'c']);

describe('1,000 calls with an instance killed in the middle', () => {
  it('settles every call: answered by the instance that ran it, or failed only if it was in flight on the killed one', async () => {
    const client = new Client({ name: 'load', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(cluster.proxy.url, {
        reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 500, reconnectionDelayGrowFactor: 1.5, maxRetries: 20 },
      }),
    );
    const outcomes: string[] = [];
    const call = () =>
      client.callTool({ name: 'whoami', arguments: {} }, { timeout: 20_000 }).then(
        (result) => `ok ${(result.content as { text: string }[])[0]?.text}`,
        (error: Error) => `failed ${error.message}`,
      );
    for (let batch = 0; batch < 50; batch++) {
      const calls = Array.from({ length: 20 }, call);
      if (batch === 25) await stopInstance(cluster.instances[1] as Instance, 'SIGKILL');
      outcomes.push(...(await Promise.all(calls)));
    }
    expect(outcomes).toHaveLength(1_000);
    const failed = outcomes.filter((o) => o.startsWith('failed'));
    // At most the 20 calls of the batch in flight when b died; every other call was answered.
    expect(failed.length).toBeLessThanOrEqual(20);
    expect(outcomes.filter((o) => o.startsWith('ok')).every((o) => /^ok [abc]$/.test(o))).toBe(true);
    expect(outcomes.slice(520).every((o) => /^ok [ac]$/.test(o))).toBe(true);
    await client.close();
  }, 150_000);
});
