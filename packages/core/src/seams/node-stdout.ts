// The one module that replaces Node's `process.stdout.write` and `console.log/info/debug`: over
// stdio, stdout carries protocol messages only, so what handlers and libraries print there goes to
// stderr. `.ci/lint-seams.mjs` keeps such patches in seams/.

let stdoutGuarded: ((line: string) => boolean) | undefined;

/**
 * Keeps stdout for protocol messages only: `console.log/info/debug` and direct
 * `process.stdout.write` calls from handlers or libraries go to stderr instead. Returns the real
 * stdout writer for the transport.
 */
export function guardStdout(): (line: string) => boolean {
  if (stdoutGuarded) return stdoutGuarded;
  const stdout = process.stdout;
  const realWrite = stdout.write.bind(stdout) as (chunk: string) => boolean;
  const toStderr = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  stdout.write = toStderr;
  const log = (...args: unknown[]) => {
    process.stderr.write(`${args.map((a) => (typeof a === 'string' ? a : inspectValue(a))).join(' ')}\n`);
  };
  console.log = log;
  console.info = log;
  console.debug = log;
  stdoutGuarded = realWrite;
  return realWrite;
}

function inspectValue(value: unknown): string {
  try {
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  } catch {
    return String(value);
  }
}
