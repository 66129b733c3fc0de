import { MESSAGES } from '../messages/message-catalog.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { describeDto } from '../validation/dto-descriptor.js';
import type { CallPlan, CompletionDefinition } from './definitions.js';
import type { HandlerBuild, Method } from './handler-build.js';

/**
 * The `@Complete` sources of a prompt's or template's DTO, each as a plan the executor runs:
 * a method of the server class (resolved in the request's scope) or a plain function. Their
 * access is the prompt's or template's, checked before the source runs.
 */
export function buildCompletions(
  build: HandlerBuild<'prompt' | 'resourceTemplate'>,
  dto: Constructor | null,
): ReadonlyMap<string, CompletionDefinition> {
  const completions = new Map<string, CompletionDefinition>();
  if (!dto) return completions;
  const { planning, serverClass } = build;
  const storage = planning.storage;
  const properties = storage.fieldNamesOf(dto).concat(Object.keys(describeDto(dto).schema.properties ?? {}));
  for (const property of properties) {
    if (completions.has(property)) continue;
    const found = storage.completionOf(dto, property);
    if (!found) continue;
    const source = found.source;
    let needsInstance = false;
    let invoke: CallPlan['invoke'];
    if (typeof source === 'function') {
      invoke = (_instance, input) => {
        const { value, context } = input as { value: string; context: Parameters<typeof source>[1] };
        return source(value, context);
      };
    } else {
      const method = (serverClass.prototype as Record<string, unknown>)[source];
      if (typeof method !== 'function') {
        build.add(MESSAGES.completionMethodMissing, source, dto.name, property, serverClass.name);
        continue;
      }
      needsInstance = true;
      invoke = (instance, input) => {
        const { value, context } = input as { value: string; context: unknown };
        return (method as Method).call(instance, value, context);
      };
    }
    completions.set(
      property,
      Object.freeze({
        kind: build.args.kind,
        name: property,
        where: typeof source === 'function' ? `${dto.name}.${property} (@Complete)` : `${serverClass.name}.${source}`,
        serverClass,
        methodName: typeof source === 'function' ? build.args.methodName : source,
        guards: Object.freeze([]),
        interceptors: Object.freeze([]),
        scopes: Object.freeze([]),
        guarded: false,
        // Completions are typed as the user types: the app's limits cover them, as every call.
        rateLimits: planning.appRateLimits,
        // Hidden or shown with its prompt or template, which is asked first.
        tags: Object.freeze([]),
        input: { kind: 'raw' } as const,
        needsInstance,
        invoke,
      }),
    );
  }
  return completions;
}
