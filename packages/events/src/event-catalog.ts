import { type BuildProblem, type Constructor, dtoToJsonSchema, type JsonSchema, validateDto } from '@armature/core';
import { EVENTS_BUILD_MESSAGES as B, EVENTS_MESSAGES as M } from './messages.js';

/** One event type a server offers. */
export interface EventDeclaration<P extends object = object> {
  /** 1-128 characters of A-Z a-z 0-9 _ . - /, e.g. `incident.created`. */
  readonly name: string;
  /** What happened when it fires: the model reads it to decide what to subscribe to. */
  readonly description: string;
  /** The DTO class of the payload: advertised as `payloadSchema`, and every emitted payload is validated against it. */
  readonly payload: Constructor<P>;
  /** The DTO class of the subscription arguments (filters), advertised as `inputSchema`. None: no arguments. */
  readonly arguments?: Constructor;
  /** Whether a subscription with these arguments receives this payload. None: every subscription does. */
  match?(payload: P, args: Record<string, unknown>): boolean;
}

/** An event type as served: its declaration and the schemas advertised by `events/list`. */
export interface CatalogEntry {
  readonly declaration: EventDeclaration;
  readonly inputSchema: JsonSchema;
  readonly payloadSchema: JsonSchema;
}

const NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;
const NO_ARGUMENTS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** The event types of an app, checked at start-up: names, descriptions and DTOs. */
export class EventCatalog {
  readonly entries = new Map<string, CatalogEntry>();

  constructor(declarations: readonly EventDeclaration[], problems: BuildProblem[]) {
    const seen = new Set<string>();
    for (const declaration of declarations) {
      const where = `events.${declaration.name}`;
      const problem = (definition: { code: string; fix: () => string }, message: string) =>
        problems.push({ code: definition.code, where, message, fix: definition.fix() });
      if (typeof declaration.name !== 'string' || !NAME.test(declaration.name)) {
        problem(B.badEventName, B.badEventName.message(String(declaration.name), 'is not 1-128 characters of A-Z a-z 0-9 _ . - /'));
        continue;
      }
      if (seen.has(declaration.name)) {
        problem(B.badEventName, B.badEventName.message(declaration.name, 'is declared twice'));
        continue;
      }
      seen.add(declaration.name);
      if (typeof declaration.description !== 'string' || declaration.description.trim() === '') {
        problem(B.badPayloadDto, 'the event has no description (the model reads it to decide what to subscribe to)');
      }
      const payloadSchema = this.schemaOf(declaration.payload, 'payload', problem);
      const inputSchema = declaration.arguments === undefined ? NO_ARGUMENTS : this.schemaOf(declaration.arguments, 'arguments', problem);
      if (payloadSchema && inputSchema) this.entries.set(declaration.name, { declaration, inputSchema, payloadSchema });
    }
  }

  private schemaOf(dto: unknown, role: string, problem: (d: typeof B.badPayloadDto, message: string) => void): JsonSchema | undefined {
    if (typeof dto !== 'function') {
      problem(B.badPayloadDto, `${role} is ${dto === undefined ? 'missing' : 'not a class'}; it must be a DTO class`);
      return undefined;
    }
    const { schema, problems } = dtoToJsonSchema(dto as Constructor);
    for (const found of problems) problem(B.badPayloadDto, `${role} ${dto.name}: ${found.message} (${found.code}; ${found.fix})`);
    return problems.length === 0 ? schema : undefined;
  }

  get names(): string[] {
    return [...this.entries.keys()];
  }

  /** The `events/list` entries. `delivery` lists the modes this server serves for every event type. */
  list(delivery: readonly string[]): Record<string, unknown>[] {
    return [...this.entries.values()].map(({ declaration, inputSchema, payloadSchema }) => ({
      name: declaration.name,
      description: declaration.description,
      delivery: [...delivery],
      inputSchema,
      payloadSchema,
    }));
  }

  /** The subscription arguments checked against the event's arguments DTO: the plain arguments, or the issues. */
  async checkArguments(
    entry: CatalogEntry,
    args: unknown,
  ): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; issues: string }> {
    const given = args ?? {};
    if (typeof given !== 'object' || Array.isArray(given) || given === null) return { ok: false, issues: 'arguments must be an object' };
    if (entry.declaration.arguments === undefined) {
      const keys = Object.keys(given);
      return keys.length === 0 ? { ok: true, value: {} } : { ok: false, issues: `this event takes no arguments (got ${keys.join(', ')})` };
    }
    const outcome = await validateDto(entry.declaration.arguments as Constructor<object>, given);
    return outcome.ok ? { ok: true, value: given as Record<string, unknown> } : { ok: false, issues: joinIssues(outcome.issues) };
  }

  /** The payload checked against the event's DTO; throws naming every issue. */
  async checkPayload(entry: CatalogEntry, payload: unknown): Promise<void> {
    const outcome = await validateDto(entry.declaration.payload, payload);
    if (!outcome.ok) throw new TypeError(M.badPayload(entry.declaration.name, joinIssues(outcome.issues)));
  }
}

function joinIssues(issues: readonly { path: string; message: string }[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
}
