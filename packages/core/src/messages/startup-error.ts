import { ArmatureBuildError } from './build-error.js';
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
  if (error instanceof TypeError && /Reflect\.getMetadata is not a function/.test(error.message)) {
    // The first frame outside class-transformer's and class-validator's code is the DTO's file
    const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
    // (decorator helpers a compiler injects, such as oxc's under vite-node, are skipped too).
    const own = frames.find((line) => !/[\\/]node_modules[\\/]|@oxc-project|\(node:/.test(line)) ?? frames[0] ?? '';
    const where = /\(?((?:file:\/\/|\/)[^()\s]+?)\)?$/.exec(own.trim())?.[1] ?? 'an unknown file';
    return new ArmatureBuildError(
      [problem(MESSAGES.decoratorBeforeReflectMetadata, 'start-up', where)],
      'Armature cannot start the MCP server',
      'while loading the entry',
      {
        cause: error,
      },
    );
  }
  return undefined;
}
