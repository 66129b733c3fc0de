import * as clack from '@clack/prompts';

/** A long step shown while it runs (e.g. the dependency install). */
export interface Progress {
  done(message: string): void;
  fail(message: string): void;
}

/** Where commands report to: clack's prompts and spinners on a terminal, plain lines elsewhere. */
export interface Ui {
  readonly interactive: boolean;
  intro(title: string): void;
  info(message: string): void;
  success(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** A block of lines (a plan, next steps), with an optional title. */
  note(lines: string, title?: string): void;
  progress(message: string): Progress;
  outro(message: string): void;
  text(question: string, initial: string, validate?: (value: string) => string | undefined): Promise<string>;
  select<T extends string>(question: string, options: ReadonlyArray<{ value: T; label: string; hint?: string }>, initial: T): Promise<T>;
  confirm(question: string, initial: boolean): Promise<boolean>;
}

export class CancelledError extends Error {
  constructor() {
    super('Cancelled.');
    this.name = 'CancelledError';
  }
}

function unlessCancelled<T>(value: T | symbol): T {
  if (clack.isCancel(value)) throw new CancelledError();
  return value as T;
}

/** clack's prompts, spinner and log, for a person at a terminal. */
export function terminalUi(): Ui {
  return {
    interactive: true,
    intro: (title) => clack.intro(title),
    info: (message) => clack.log.info(message),
    success: (message) => clack.log.success(message),
    warn: (message) => clack.log.warn(message),
    error: (message) => clack.log.error(message),
    note: (lines, title) => clack.note(lines, title),
    progress(message) {
      const spin = clack.spinner();
      spin.start(message);
      return { done: (m) => spin.stop(m), fail: (m) => spin.error(m) };
    },
    outro: (message) => clack.outro(message),
    async text(question, initial, validate) {
      return unlessCancelled<string>(
        await clack.text({ message: question, initialValue: initial, validate: validate ? (v) => validate(v ?? '') : undefined }),
      );
    },
    async select<T extends string>(
      question: string,
      options: ReadonlyArray<{ value: T; label: string; hint?: string }>,
      initial: T,
    ): Promise<T> {
      const choices = options.map((o) => ({ ...o })) as Parameters<typeof clack.select<T>>[0]['options'];
      return unlessCancelled<T>(await clack.select<T>({ message: question, options: choices, initialValue: initial }));
    },
    async confirm(question, initial) {
      return unlessCancelled<boolean>(await clack.confirm({ message: question, initialValue: initial }));
    },
  };
}

/**
 * Plain lines for CI, pipes and tests: no prompts (the defaults are taken), no animation. Long
 * steps print a line when they start and one when they end.
 */
export function plainUi(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`), writeError = write): Ui {
  return {
    interactive: false,
    intro: (title) => write(title),
    info: (message) => write(message),
    success: (message) => write(message),
    warn: (message) => writeError(`warning: ${message}`),
    error: (message) => writeError(`error: ${message}`),
    note: (lines, title) => write(title ? `${title}:\n${indent(lines)}` : lines),
    progress(message) {
      write(`${message} ...`);
      return { done: (m) => write(m), fail: (m) => writeError(`error: ${m}`) };
    },
    outro: (message) => write(message),
    text: async (_question, initial) => initial,
    select: async (_question, _options, initial) => initial,
    confirm: async (_question, initial) => initial,
  };
}

function indent(lines: string): string {
  return lines
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** clack when a person is at a terminal (and not in CI), plain lines otherwise. */
export function defaultUi(): Ui {
  const tty = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  return tty && !clack.isCI() ? terminalUi() : plainUi();
}
