import { defineExtension, type Extension } from '@armature/core';
import { IsString, MaxLength } from 'class-validator';

// A third-party extension, written as a package outside core would write it: it imports only
// @armature/core's public entry. It adds a capability (`com.example/echo` with its settings), two
// methods, middleware, a resource, and reads and writes its own `_meta` keys.

export const ECHO = 'com.example/echo';
/** A `_meta` key of the extension's own: the request's is read, the result's written. */
export const ECHO_TRACE = 'com.example/echo-trace';

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
  setup: (host) => {
    if (host.catalog.tools.length === 0) host.problem('the echo extension needs a tool to echo next to', 'add a @Tool to a server class');
    host.resource({ uri: 'echo://about', name: 'about', mimeType: 'text/plain', read: (ctx) => `echo ${ctx.extensionId}` });
  },
});
