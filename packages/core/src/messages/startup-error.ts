import { ArmatureBuildError, debugging } from './build-error.js';
import { MESSAGES, problem } from './message-catalog.js';

/** listenHttp's error when its port is taken: the cause and the fix instead of a raw EADDRINUSE stack. */
export function portBusyError(port: number, host: string, cause: Error): ArmatureBuildError {
  return new ArmatureBuildError(
    [problem(MESSAGES.portBusy, 'listenHttp', port, host)],
    'Armature cannot start the MCP server',
    'with the HTTP port',
    {
      cause,
    },
  );
}

/**
 * A start-up failure Armature can explain, as an ArmatureBuildError (printed the same way), or
 * undefined. For errors thrown before @armature/core itself was evaluated, so only a runner that
 * catches the entry's error (`armature dev`, `armature inspect`) can ask.
 */
export function explainStartupError(error: unknown): ArmatureBuildError | undefined {
  // By name too: a runner may hold another copy of @armature/core than the one that threw.
  if (error instanceof ArmatureBuildError || (error instanceof Error && error.name === 'ArmatureBuildError'))
    return error as ArmatureBuildError;
  if (isStandardDecoratorCrash(error)) {
    return new ArmatureBuildError(
      [problem(MESSAGES.standardDecorators, 'start-up', `a class-validator decorator (at ${ownFrame(error as Error)})`)],
      'Armature cannot start the MCP server',
      'in how the decorators were compiled',
      { cause: error },
    );
  }
  if (error instanceof TypeError && /Reflect\.getMetadata is not a function/.test(error.message)) {
    return new ArmatureBuildError(
      [problem(MESSAGES.decoratorBeforeReflectMetadata, 'start-up', ownFrame(error))],
      'Armature cannot start the MCP server',
      'while loading the entry',
      {
        cause: error,
      },
    );
  }
  return undefined;
}

/**
 * Where the DTO is: the first frame outside class-transformer's and class-validator's code
 * (decorator helpers a compiler injects, such as oxc's under vite-node, are skipped too).
 */
function ownFrame(error: Error): string {
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const own = frames.find((line) => !/[\\/]node_modules[\\/]|@oxc-project|\(node:|__esDecorate/.test(line)) ?? frames[0] ?? '';
  return /\(?((?:file:\/\/|\/)[^()\s]+?)\)?$/.exec(own.trim())?.[1] ?? 'an unknown file';
}

/**
 * class-validator's property decorators called as standard (TC39) decorators, as code compiled
 * without `experimentalDecorators` calls them: `(undefined, context)`, so reading the target's
 * constructor fails before any Armature decorator could say why. Recognised by the TypeError and a
 * frame of class-validator or of the standard-decorator helper TypeScript emits (`__esDecorate`).
 */
function isStandardDecoratorCrash(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    // V8's words (Node, Deno), then JavaScriptCore's (Bun).
    /^Cannot read properties of undefined \(reading 'constructor'\)$|^undefined is not an object \(evaluating '\w+\.constructor'\)$/.test(
      error.message,
    ) &&
    /[\\/]class-validator[\\/]|__esDecorate|__decorateElement/.test(error.stack ?? '')
  );
}

/**
 * Under a runtime with `process` (Node, Bun, Deno): an error nothing caught that Armature can explain
 * and did not throw itself (a decorator crash while the entry loads) is printed as its problem and
 * fix, and the process exits 1 as Node would, without the foreign stack. ARMATURE_DEBUG=1 leaves it
 * to the runtime to print the whole error after the explanation.
 */
export function explainUncaughtStartupErrors(): void {
  const runtime = globalThis.process;
  if (typeof runtime?.on !== 'function') return;
  runtime.on('uncaughtExceptionMonitor', (error) => {
    if (error instanceof ArmatureBuildError || (error instanceof Error && error.name === 'ArmatureBuildError')) return;
    const explained = explainStartupError(error);
    if (!explained) return;
    runtime.stderr?.write?.(`${explained.name}: ${explained.message}\n`);
    if (!debugging()) runtime.exit(1);
  });
}
