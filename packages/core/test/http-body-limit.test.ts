// A body over maxRequestBodySize (issue 11, item 7): the 413 is complete at once (status, headers
// and a Content-Length body, in the first bytes that arrive), whatever the client does with the
// rest of its body; `Expect: 100-continue` is answered from the headers; a chunked body is counted
// as it arrives. Real HTTP on 127.0.0.1: raw sockets (to see exactly what is on the wire) and curl.
// How fast the 413 comes, and the server's memory meanwhile, are reliability figure 3 (printed
// with their targets: 413 in under 50 ms, <= 1 MB growth), not assertions here.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp, McpServer, Tool } from '../src/index.js';

@McpServer({ name: 'limits', version: '1.0.0' })
class LimitsServer {
  @Tool({ description: 'Answers pong', input: undefined })
  ping() {
    return 'pong';
  }
}

const TOO_LARGE =
  '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Payload Too Large: Request body must not exceed 4194304 bytes"},"id":null}';
const HEADERS = 'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

let url: URL;
let close: () => Promise<void>;
beforeAll(async () => {
  const listener = await createMcpApp(LimitsServer).listenHttp({ port: 0 });
  url = new URL(listener.url);
  close = listener.close;
});
afterAll(() => close());

interface Exchange {
  /** Everything received, as text. */
  received: string;
  /** What the first answer bytes to arrive held (after a `100 Continue`, if any). */
  firstAnswer: string;
  /** Body bytes the client had written when the answer began. */
  bodyBytesSent: number;
}

/** The first final (non-1xx) response in `text`, when it is complete (Content-Length framing). */
function finalResponse(text: string): { head: string; body: string } | undefined {
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) return undefined;
    const head = text.slice(at, end);
    if (/^HTTP\/1\.1 1\d\d /.test(head)) {
      at = end + 4;
      continue;
    }
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN);
    const body = text.slice(end + 4, end + 4 + length);
    return Buffer.byteLength(body) === length ? { head, body } : undefined;
  }
}

/**
 * Sends a request head, then (unless `waitForContinue` and no 100 arrives) up to `total` body
 * bytes, 64 KiB per turn, stopping as soon as any answer byte arrives; resolves once a complete
 * final response is in (or after 10 s with what came).
 */
function exchange(head: string, total: number, options: { chunked?: boolean; waitForContinue?: boolean } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const piece = Buffer.alloc(64 * 1024, 0x78);
    let received = '';
    let firstAnswer: string | undefined;
    let sent = 0;
    let mayWrite = !options.waitForContinue;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ received, firstAnswer: firstAnswer ?? '', bodyBytesSent: sent });
    };
    const timer = setTimeout(done, 10_000);
    const pump = () => {
      if (!mayWrite || firstAnswer !== undefined || socket.destroyed || sent >= total) return;
      const chunk = piece.subarray(0, Math.min(piece.length, total - sent));
      sent += chunk.length;
      const framed = options.chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
      if (socket.write(framed)) setImmediate(pump);
      else socket.once('drain', () => setImmediate(pump));
    };
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !mayWrite) {
        mayWrite = true;
        pump();
        return;
      }
      firstAnswer ??= received;
      if (finalResponse(received)) done();
    });
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

const post = (extra: string) => `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n${HEADERS}${extra}\r\n`;

describe('a body over the limit', () => {
  it('gets a complete 413 at once with Content-Length, though the client stops sending when the answer starts', async () => {
    const result = await exchange(post('Content-Length: 100000000\r\n'), 100_000_000);
    const answer = finalResponse(result.received);
    expect(answer?.head).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer?.head).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer?.body).toBe(TOO_LARGE);
    // Complete as soon as it starts: the first bytes to arrive are the whole answer (the old
    // answer ended only when a 5 s drain timer fired).
    expect(finalResponse(result.firstAnswer)).toEqual(answer);
  });

  it('answers Expect: 100-continue with a too-large Content-Length by 413, without 100 Continue and without the body', async () => {
    const result = await exchange(post('Content-Length: 100000000\r\nExpect: 100-continue\r\n'), 100_000_000, { waitForContinue: true });
    expect(result.received.startsWith('HTTP/1.1 413 Payload Too Large\r\n')).toBe(true);
    expect(finalResponse(result.received)?.body).toBe(TOO_LARGE);
    expect(result.bodyBytesSent).toBe(0);
  });

  it('sends 100 Continue to an admitted request that waits for it, then serves it', async () => {
    const received = await new Promise<string>((resolve) => {
      const socket = connect({ host: url.hostname, port: Number(url.port) });
      let text = '';
      const timer = setTimeout(() => socket.destroy(), 10_000);
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write(INITIALIZE);
        if (text.includes('"id":1}')) socket.destroy();
      });
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(text);
      });
      socket.on('connect', () => socket.write(post(`Content-Length: ${INITIALIZE.length}\r\nExpect: 100-continue\r\n`)));
    });
    expect(received.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n')).toBe(true);
    expect(received).toContain('"serverInfo":{"name":"limits","version":"1.0.0"}');
  });

  it('counts a chunked body as it arrives and answers a complete 413 once it passes the limit', async () => {
    const result = await exchange(post('Transfer-Encoding: chunked\r\n'), 100_000_000, { chunked: true });
    const answer = finalResponse(result.received);
    expect(answer?.head).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer?.body).toBe(TOO_LARGE);
    expect(result.bodyBytesSent).toBeLessThan(40 * 1024 * 1024);
  });
});

const hasCurl = spawnSync('curl', ['--version']).status === 0;

describe.skipIf(!hasCurl)('curl --data-binary @100MB', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'armature-413-'));
    writeFileSync(join(dir, 'big.json'), Buffer.alloc(100_000_000, 0x78));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Asynchronous: the server under test runs in this process.
  const curl = async (...extra: string[]) => {
    const stdout = await new Promise<string>((resolve) =>
      execFile(
        'curl',
        [
          '-s',
          '-w',
          '\n%{http_code} %{size_upload}',
          '-H',
          'content-type: application/json',
          '-H',
          'accept: application/json, text/event-stream',
          ...extra,
          '--data-binary',
          `@${join(dir, 'big.json')}`,
          url.href,
        ],
        { encoding: 'utf8', timeout: 15_000 },
        (_error, out) => resolve(out),
      ),
    );
    const [body, status] = stdout.split('\n');
    const [code, uploaded] = (status ?? '').split(' ');
    return { body, code, uploaded: Number(uploaded) };
  };

  // Not the time curl takes (reliability figure 3 measures time to the 413): how much of the
  // 100 MB it had to send. The server stops reading soon after the limit, so the socket buffers
  // bound the upload whatever the machine's speed; a server reading the whole body to refuse it
  // lets all 100 MB through.
  it('gets its 413 without sending the body, with or without Expect: 100-continue, chunked too', async () => {
    for (const extra of [[], ['-H', 'Expect:'], ['-H', 'Expect:', '-H', 'Transfer-Encoding: chunked']]) {
      const result = await curl(...extra);
      expect({ extra, body: result.body, code: result.code }).toEqual({ extra, body: TOO_LARGE, code: '413' });
      expect(result.uploaded, `${extra.join(' ')}: bytes curl uploaded`).toBeLessThan(40 * 1024 * 1024);
    }
  });
});
