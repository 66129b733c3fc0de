// The script's own detectors, so that a PASS means something: the leak check must catch stack
// frames and file paths, and the body reader must read both JSON and SSE answers.
import { describe, expect, it } from 'vitest';
import { parseBody } from '../src/wire/http-peer.js';
import { leak } from '../src/wire/jsonrpc.js';

describe('leak', () => {
  it('flags stack frames and file paths', () => {
    expect(leak('Error: boom\n    at Object.<anonymous> (/srv/app/dist/server.js:10:5)')).toMatch(/stack frame/);
    expect(leak('failed at handler (file:///srv/app/x.mjs:1:2)')).toMatch(/stack frame/);
    expect(leak('cannot read /home/me/project/src/tool.ts')).toMatch(/file path/);
    expect(leak('see node_modules/foo for details')).toMatch(/file path/);
    expect(leak('C:\\Users\\me\\app\\index.js exploded')).toMatch(/file path/);
  });

  it('lets ordinary error texts through', () => {
    for (const text of [
      'Invalid arguments for tool "ingest":\nitems: array has more than the limit of 10000 items',
      'Parse error: Invalid JSON',
      'the tool failed: {"code":"E_OBJECT","detail":[1,2,3]}',
      'Payload Too Large: Request body must not exceed 4194304 bytes',
      'Unsupported Media Type: Content-Type must be application/json',
      'Invalid Origin: http://evil.example',
    ]) {
      expect(leak(text), text).toBeUndefined();
    }
  });
});

describe('parseBody', () => {
  it('reads JSON, JSON arrays and SSE data lines', () => {
    expect(parseBody('application/json', '{"jsonrpc":"2.0","id":1,"result":{}}').messages).toHaveLength(1);
    expect(parseBody('application/json', '[{"id":1},{"id":2}]').messages).toHaveLength(2);
    const sse =
      'event: message\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\nevent: message\ndata: {"jsonrpc":"2.0","id":4,"result":{}}\n\n';
    expect(parseBody('text/event-stream', sse).messages.map((m) => m.id)).toEqual([3, 4]);
    expect(parseBody('application/json', 'not json').unparsable).toBe(true);
  });
});
