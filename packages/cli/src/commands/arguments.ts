import { type ParseArgsConfig, parseArgs } from 'node:util';

/** A command line the command cannot run: its message says what to type instead. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type CommandConfig<O> = { args: string[]; allowPositionals: true; options: O };

/** A command's arguments: its options (as node:util's `parseArgs` reads them) and positionals. */
export function parseCommand<O extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: O,
): ReturnType<typeof parseArgs<CommandConfig<O>>> {
  return parseArgs({ args: [...args], allowPositionals: true, options });
}

/** The value of an option that takes one of `allowed`, or undefined when it was not given. */
export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}
