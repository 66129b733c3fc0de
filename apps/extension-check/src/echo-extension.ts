import { defineExtension, type Extension } from '@armature/core';
import { IsString, MaxLength } from 'class-validator';

// A third-party extension, written as a package outside core would write it: it imports only
// @armature/core's public entry. It adds a capability (`com.example/echo` with its settings), two
// methods, middleware, a resource, reads and writes its own `_meta` keys, changes how tools are
// advertised to the clients that negotiate it (and decides which do), and closes with the app.

export const ECHO = 'com.example/echo';
/** A `_meta` key of the extension's own: the request's is read, the result's written. */
export const ECHO_TRACE = 'com.example/echo-trace';

/** How many times the extension was closed (its `close` hook), for the test to read. */
export const echoLife = { closed: 0 };

export class SayParams {
  @IsString()
  @MaxLength(40)
  text!: string;
}

export const echo: Extension = defineExtension({
  id: ECHO,
  settings: { version: 1 },
  methods: {
    'echo/say': {
      params: SayParams,
      requiresClientExtension: true,
      handle: async (params: SayParams, ctx) => {
        await ctx.notify('notifications/echo/heard', { text: params.text });
        ctx.meta.set(ECHO_TRACE, `traced:${ctx.meta.get<string>(ECHO_TRACE) ?? 'none'}`);
        return { said: params.text, client: ctx.client() ?? null, _meta: { 'com.example/kept': true } };
      },
    },
    'echo/fail': {
      handle: () => {
        throw new Error('secret database password in this message');
      },
    },
  },
  // Observes every request, and answers one itself without reaching the handler.
  onRequest: async (request, next) => {
    if (request.method === 'echo/say' && request.params?.text === 'short-circuit') return { said: 'from middleware', client: null };
    return next();
  },
  // A client that declared the extension but asks to be left out (`muted`) does not take part.
  accepts: (declared) => declared.muted !== true,
  setup: (host) => {
    if (host.catalog.tools.length === 0) host.problem('the echo extension needs a tool to echo next to', 'add a @Tool to a server class');
    host.resource({ uri: 'echo://about', name: 'about', mimeType: 'text/plain', read: (ctx) => `echo ${ctx.extensionId}` });
    // Each tool marked `echo: true` in its decorator's options is advertised with the extension's
    // `_meta` to the clients that negotiate it; `echo: 'only'` keeps the tool to them.
    for (const name of host.catalog.tools) {
      const marked = host.tool(name)?.options.echo;
      if (marked === undefined) continue;
      host.extendTool(name, { _meta: { [ECHO]: { echoes: true } }, onlyForExtensionClients: marked === 'only' });
    }
  },
  close: async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    echoLife.closed++;
  },
});
