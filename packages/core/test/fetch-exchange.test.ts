import { describe, expect, it } from 'vitest';
import { FetchExchange } from '../src/transports/http/fetch-exchange.js';

// How the fetch face answers a 2026-07-28 call the request engine serves: as the SDK's per-request
// transport does, one JSON body, or an SSE stream once the call sends a notification.

const message = { id: 7, method: 'tools/call', params: { name: 'add' } };
const exchange = (request = new Request('http://127.0.0.1/mcp', { method: 'POST' })) => new FetchExchange(message, undefined, request, 2);

describe('FetchExchange', () => {
  it('answers one JSON body when the call sent no notification', async () => {
    const call = exchange();
    call.finish({ jsonrpc: '2.0', id: 7, result: { content: [] } });
    const response = await call.response;
    expect([response.status, response.headers.get('content-type'), await response.text()]).toEqual([
      200,
      'application/json',
      '{"jsonrpc":"2.0","id":7,"result":{"content":[]}}',
    ]);
  });

  it('answers 400 for a missing client capability (-32021), as the SDK does', async () => {
    const call = exchange();
    call.finish({ jsonrpc: '2.0', id: 7, error: { code: -32021, message: 'missing' } });
    expect((await call.response).status).toBe(400);
  });

  it('streams the notifications, then the answer, once the call notifies', async () => {
    const call = exchange();
    call.notify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'one' } });
    call.finish({ jsonrpc: '2.0', id: 7, result: {} });
    const response = await call.response;
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"one"}}\n\n' +
        'event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n',
    );
  });

  it('answers 500 with the body given for a failure of the server', async () => {
    const call = exchange();
    call.fail('{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal server error"}}');
    const response = await call.response;
    expect([response.status, await response.text()]).toEqual([
      500,
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal server error"}}',
    ]);
  });

  it('holds notifications in its valve while the reader does not read, and lets them go when it reads', async () => {
    const call = exchange();
    const valve = call.notifications();
    const big = 'x'.repeat(70 * 1024);
    // The first notification fills the stream past its buffer: the stream is now congested.
    await valve.send(async () => call.notify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: big } }));
    let sent = 0;
    const waiting = valve.send(async () => {
      sent++;
      call.notify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'two' } });
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect([sent, valve.pending]).toEqual([0, 1]);
    const reader = (await call.response).body?.getReader();
    await reader?.read();
    await waiting;
    expect(sent).toBe(1);
    call.finish(undefined);
  });

  it('tells the engine when the client goes away', async () => {
    const controller = new AbortController();
    const call = exchange(new Request('http://127.0.0.1/mcp', { method: 'POST', signal: controller.signal }));
    let gone = 0;
    call.onGone(() => gone++);
    controller.abort();
    call.onGone(() => gone++);
    expect(gone).toBe(2);
  });
});
