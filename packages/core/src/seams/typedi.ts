// typedi keeps what `@Inject` records (a token for a constructor parameter or a property) in
// `Container.handlers`, which its typings do not declare. Armature's request scopes build server
// and `@RequestScoped` classes themselves, so they read those records once at start-up. Before
// that, the list is checked with a probe `@Inject`; when it is not as expected, Armature says so
// once and resolves those parameters by their type.
import { Container, Inject } from 'typedi';
import { seamMessages } from '../messages/seam-messages.js';

/** An `@Inject` record as typedi keeps it. */
export interface InjectRecord {
  object: object;
  propertyName?: string;
  index?: number;
  value: (container: { get(id: unknown): unknown }) => unknown;
}

let checked: InjectRecord[] | null | undefined;

/** typedi's `@Inject` records (live), or an empty list (said once on stderr) when they cannot be read. */
export function injectRecords(): readonly InjectRecord[] {
  if (checked === undefined) {
    const handlers = (Container as unknown as { handlers?: unknown }).handlers;
    const problem = problemOf(handlers);
    if (problem) process.stderr.write(seamMessages.typediOff(problem));
    checked = problem ? null : (handlers as InjectRecord[]);
  }
  return checked ?? [];
}

function problemOf(handlers: unknown): string | undefined {
  if (!Array.isArray(handlers)) return 'Container.handlers is not a list';
  class Token {}
  class Probe {}
  Inject(() => Token)(Probe, undefined as unknown as string, 0);
  const index = handlers.findIndex((h: Partial<InjectRecord>) => h.object === Probe);
  const record = handlers[index] as Partial<InjectRecord> | undefined;
  // The probe's record is not kept: no class of the app is `Probe`.
  if (index !== -1) handlers.splice(index, 1);
  if (record?.index !== 0 || typeof record.value !== 'function') return 'a probe @Inject left no record of its parameter';
  return undefined;
}
