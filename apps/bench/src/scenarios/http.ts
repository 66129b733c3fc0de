// Over HTTP, each server in its own process on 127.0.0.1, the raw clients' pools of keep-alive
// connections sending tools/call `add`: 2026-07-28 stateless (Armature, the SDK's createMcpHandler,
// the hand-written node:http loop) and 2025-11-25 in one session (Armature, the SDK's sessionful
// transport).
import { Http2026Client } from '../drivers/http-2026-client.js';
import { HttpSessionClient } from '../drivers/http-session-client.js';
import type { Scenario } from '../harness.js';
import { addText, type SearchArgs, searchText } from '../servers/bench-tools.js';
import type { Settings } from '../settings.js';
import { openHttpSides } from './http-sides.js';
import { ADD_FIXED, ADD_UNKNOWN, checkRefused, checkSame, SEARCH_FIXED, SEARCH_INVALID } from './tool-calls.js';

/**
 * The stateless line. With `logLevel`, the same calls with that level in each request's `_meta`, as a
 * gateway or an official client that always names a level sends them: `add` logs nothing, so each
 * answer is still one JSON body (before issue 35's notify pass, Armature served such a request
 * through the SDK's handler, not its engine: 6-14x the CPU per call).
 */
function http2026(settings: Settings, logLevel?: string): Scenario {
  const connections = settings.httpConnections;
  const over = logLevel ? `HTTP 2026-07-28 with logLevel ${logLevel}` : 'HTTP 2026-07-28';
  return {
    id: logLevel ? 'http 2026 add, logLevel' : 'http 2026 add',
    title:
      `HTTP 2026-07-28 stateless tools/call add${logLevel ? ` with logLevel "${logLevel}" in _meta` : ''}: ` +
      `${settings.httpCalls.toLocaleString('en-US')} calls per sample over ${connections} ` +
      'keep-alive connections; Armature app.listenHttp vs the SDK createMcpHandler + toNodeHandler on node:http vs a hand-written node:http loop',
    unit: 'calls/s',
    // Issue 11: at least 3x the SDK; issue 21: at least 0.5x of the hand-written node:http loop.
    targets: [
      { anchor: 'sdk', goal: { kind: 'ratio-at-least', value: 3 } },
      { anchor: 'raw', goal: { kind: 'ratio-at-least', value: 0.5 } },
    ],
    open: () =>
      openHttpSides(
        settings,
        { armature: { entry: 'armature-http' }, sdk: { entry: 'sdk-http' }, raw: { entry: 'raw-loop-http' } },
        (url) => Promise.resolve(new Http2026Client(url, connections, { logLevel })),
        async (answers) => {
          checkSame(`add(2, 3) over ${over}`, await answers('add', ADD_FIXED), addText(2, 3));
          checkSame(`search over ${over}`, await answers('search', SEARCH_FIXED), searchText(SEARCH_FIXED as SearchArgs));
          checkRefused(`search with a one-letter query over ${over}`, await answers('search', SEARCH_INVALID));
          checkRefused(`add with an unknown argument over ${over}`, await answers('add', ADD_UNKNOWN, ['armature', 'raw']));
        },
      ),
  };
}

function httpSession(settings: Settings): Scenario {
  const connections = settings.httpConnections;
  return {
    id: 'http session add',
    title:
      `HTTP 2025-11-25 sessionful tools/call add, one session per side: ${settings.httpCalls.toLocaleString('en-US')} calls per sample over ` +
      `${connections} keep-alive connections; Armature app.listenHttp vs the SDK's NodeStreamableHTTPServerTransport, one per session`,
    unit: 'calls/s',
    targets: [{ anchor: 'sdk', goal: { kind: 'ratio-at-least', value: 3 } }],
    open: () =>
      openHttpSides(
        settings,
        { armature: { entry: 'armature-http' }, sdk: { entry: 'sdk-http-sessions' } },
        (url) => HttpSessionClient.open(url, connections),
        async (answers) => {
          checkSame('add(2, 3) in a 2025-11-25 session', await answers('add', ADD_FIXED), addText(2, 3));
          checkSame('search in a 2025-11-25 session', await answers('search', SEARCH_FIXED), searchText(SEARCH_FIXED as SearchArgs));
          checkRefused('search with a one-letter query in a 2025-11-25 session', await answers('search', SEARCH_INVALID));
        },
      ),
  };
}

/**
 * What the proxy costs: the same Armature server called through an Armature gateway that mounts it
 * as a remote server (one more HTTP hop: the gateway's direct path, one keep-alive POST per tool
 * call), against called directly.
 */
function httpProxy(settings: Settings): Scenario {
  const connections = settings.httpConnections;
  return {
    id: 'http proxy add',
    title:
      `HTTP 2026-07-28 stateless tools/call add: ${settings.httpCalls.toLocaleString('en-US')} calls per sample over ${connections} ` +
      'keep-alive connections; an Armature gateway (createMcpApp(remoteServer({ url }))) in front of the Armature server vs that server called directly',
    unit: 'calls/s',
    // Issue 35: at least 0.35x of calling the remote directly (0.07x before the direct path).
    targets: [{ anchor: 'direct', goal: { kind: 'ratio-at-least', value: 0.35 } }],
    open: () =>
      openHttpSides(
        settings,
        { armature: { entry: 'armature-http-gateway' }, direct: { entry: 'armature-http' } },
        (url) => Promise.resolve(new Http2026Client(url, connections)),
        async (answers) => {
          checkSame('add(2, 3) through the gateway', await answers('add', ADD_FIXED), addText(2, 3));
          checkRefused('search with a one-letter query through the gateway', await answers('search', SEARCH_INVALID));
        },
      ),
  };
}

export function httpScenarios(settings: Settings): Scenario[] {
  return [http2026(settings), http2026(settings, 'debug'), httpSession(settings), httpProxy(settings)];
}
