import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleServer } from '../src/server/console-server.js';

// The console's door: the page, its script, its event stream and its /mcp relay answer only a
// request that carries the token and names the console itself (Host, and Origin when sent). A
// page on another site, or one reaching 127.0.0.1 under its own name (DNS rebinding), gets nothing.

let console_: ConsoleServer;
let port: number;

function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
        // The event stream stays open: its first event is enough.
        if (res.headers['content-type'] === 'text/event-stream' && body.includes('\n\n')) {
          res.destroy();
          done({ status: res.statusCode ?? 0, body, headers: res.headers });
        }
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', fail);
    req.end(method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : undefined);
  });
}

beforeAll(async () => {
  console_ = new ConsoleServer();
  const url = await console_.listen();
  port = Number(new URL(url).port);
  expect(url).toBe(`http://127.0.0.1:${port}/?token=${console_.token}`);
});

afterAll(() => console_.close());

describe('the console refuses what does not come from its own page', () => {
  it('the token is long and random: 24 bytes, another each time', () => {
    expect(Buffer.from(console_.token, 'base64url')).toHaveLength(24);
    expect(new ConsoleServer().token).not.toBe(console_.token);
  });

  it('answers the page, its event stream and its script with the token (in the URL or the header)', async () => {
    const page = await get(`/?token=${console_.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`/console.js?token=${console_.token}`);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const events = await get('/events', { 'x-armature-console-token': console_.token });
    expect(events.status).toBe(200);
    expect(events.body).toContain('"type":"server"');
  });

  it.each(['/', '/console.js', '/events', '/mcp'])('refuses %s without the token, or with a wrong one (401)', async (path) => {
    expect((await get(path)).status).toBe(401);
    expect((await get(`${path}?token=${console_.token.slice(1)}`)).status).toBe(401);
    expect((await get(`${path}?token=${console_.token}x`)).status).toBe(401);
    expect((await get(path, { 'x-armature-console-token': 'guess' })).status).toBe(401);
  });

  it.each(['/', '/events', '/mcp'])('refuses %s from a foreign Origin, token or not (403)', async (path) => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${port + 1}`, 'null', `https://127.0.0.1:${port}`]) {
      const answer = await get(`${path}?token=${console_.token}`, { origin }, path === '/mcp' ? 'POST' : 'GET');
      expect(answer.status, origin).toBe(403);
      expect(answer.body).toContain('another origin');
    }
    expect((await get(`/?token=${console_.token}`, { origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it('refuses a foreign Host (DNS rebinding: evil.example resolving to 127.0.0.1), token or not (403)', async () => {
    for (const host of [`evil.example:${port}`, '127.0.0.1', `127.0.0.1:${port + 1}`, `0.0.0.0:${port}`]) {
      const answer = await get(`/?token=${console_.token}`, { host });
      expect(answer.status, host).toBe(403);
      expect(answer.body).toContain('answers only at');
    }
  });

  it('says the server is not up on /mcp before it is, and serves no other path', async () => {
    const mcp = await get(`/mcp?token=${console_.token}`, { 'content-type': 'application/json' }, 'POST');
    expect(mcp.status).toBe(503);
    expect((await get(`/../etc/passwd?token=${console_.token}`)).status).toBe(404);
    expect((await get(`/console.js.map?token=${console_.token}`)).status).toBe(404);
    expect((await get(`/?token=${console_.token}`, {}, 'POST')).status).toBe(405);
  });
});
