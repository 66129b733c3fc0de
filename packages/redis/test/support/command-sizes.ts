import type { Redis } from 'ioredis';

// The argument counts of the commands Redis ran, from its slow log: with a threshold of 0 it logs
// every command, and an entry shows 31 arguments then `... (N more arguments)`.

/** Logs every command from now on (the log holds 100,000), and forgets the earlier ones. */
export async function logEveryCommand(raw: Redis): Promise<void> {
  await raw.config('SET', 'slowlog-log-slower-than', '0', 'slowlog-max-len', '100000');
  await raw.slowlog('RESET');
}

/** The argument counts of the commands the connection named `client` sent since `logEveryCommand`. */
export async function commandSizes(raw: Redis, client: string): Promise<number[]> {
  const entries = (await raw.slowlog('GET', -1)) as [number, number, number, string[], string, string][];
  return entries
    .filter(([, , , , , name]) => name === client)
    .map(([, , , args]) => {
      const more = /^\.\.\. \((\d+) more arguments\)$/.exec(args.at(-1) ?? '');
      return more ? args.length - 1 + Number(more[1]) : args.length;
    });
}
