import type { Constructor } from '../metadata/metadata-args.js';
import type { MetadataStorage } from '../metadata/metadata-storage.js';
import type { HandlerPipeline } from '../pipeline/call-pipeline.js';
import type { Guard, Interceptor, Provided } from '../pipeline/pipeline-types.js';
import type { Report } from './infer-dto-parameter.js';

function provides(provided: unknown, method: string): boolean {
  if (typeof provided === 'function') return typeof (provided.prototype as Record<string, unknown>)?.[method] === 'function';
  return typeof provided === 'object' && provided !== null && typeof (provided as Record<string, unknown>)[method] === 'function';
}

function label(provided: unknown): string {
  return typeof provided === 'function' ? provided.name || 'an anonymous class' : String(provided);
}

/** The guards, interceptors and scopes of one handler method, checked (reported when malformed). */
export function buildPipeline(serverClass: Constructor, methodName: string, storage: MetadataStorage, report: Report): HandlerPipeline {
  const found = storage.pipelineOf(serverClass, methodName);
  for (const guard of found.guards) {
    if (!provides(guard, 'canActivate'))
      report(`the guard ${label(guard)} has no canActivate method`, 'implement Guard: `canActivate(context) { return true; }`');
  }
  for (const interceptor of found.interceptors) {
    if (!provides(interceptor, 'intercept')) {
      report(
        `the interceptor ${label(interceptor)} has no intercept method`,
        'implement Interceptor: `intercept(context, next) { return next(); }`',
      );
    }
  }
  for (const scope of found.scopes) {
    if (typeof scope !== 'string' || scope === '' || /\s/.test(scope))
      report(`"${String(scope)}" is not an OAuth scope (one word, no spaces)`, "@RequireScopes('repo:write')");
  }
  return Object.freeze({
    guards: Object.freeze(found.guards as Provided<Guard>[]),
    interceptors: Object.freeze(found.interceptors as Provided<Interceptor>[]),
    scopes: Object.freeze(found.scopes),
  });
}
