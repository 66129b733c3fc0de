import { type ExecutionContext, type Guard, type Interceptor, McpServer, mount, Prompt, Resource, Tool } from '@armature/core';

/** Counts what the mounted part's guard and interceptor saw (read by the `extra_seen` tool). */
const seen = { guarded: 0, intercepted: 0 };

class ExtraGuard implements Guard {
  canActivate(_context: ExecutionContext) {
    seen.guarded++;
    return true;
  }
}

class ExtraInterceptor implements Interceptor {
  intercept(_context: ExecutionContext, next: () => Promise<unknown>) {
    seen.intercepted++;
    return next();
  }
}

/** A part the composed variant mounts beside the suite's inventory: its names and URIs are prefixed. */
@McpServer({ name: 'armature-conformance-extra', version: '0.1.0' })
export class ExtraServer {
  @Tool({ description: 'What the extra part guard and interceptor saw' })
  seen() {
    return { ...seen };
  }

  @Tool({ description: 'Hidden from every client (tag internal, in hiddenTags)', tags: ['internal'] })
  internal() {
    return 'internal';
  }

  @Resource({ uri: 'extra://info', name: 'extra-info', mimeType: 'text/plain' })
  info() {
    return 'the extra part';
  }

  @Prompt({ description: 'A prompt of the extra part' })
  brief() {
    return 'extra brief';
  }
}

/**
 * The composed variant's extra parts and options: the suite's classes are served as they are
 * (the suite calls them by name), and this part is mounted under `extra` with its own guard and
 * interceptor, one of its tools hidden by tag, so every list and call goes through the visibility
 * and part paths.
 */
export const COMPOSED = {
  parts: [mount('extra', ExtraServer, { guards: [ExtraGuard], interceptors: [ExtraInterceptor] })],
  hiddenTags: ['internal'],
};
