import { hasScopes } from '../auth/scopes.js';
import type { CallPlan, ProviderPlan } from '../builder/definitions.js';
import type { ExecutionContext, Guard } from '../context/execution-context.js';
import { after, isThenable, type MaybePromise } from '../context/maybe-promise.js';
import type { CallRequest } from './call-request.js';
import type { Catalog } from './catalog.js';

/** A guard or interceptor for this request: from its DI scope, or the instance made at start-up. */
export function provide<T>(plan: ProviderPlan<T>, request: CallRequest): T | Promise<T> {
  return plan.from === 'instance' ? plan.instance : request.scopeOf().get(plan.token);
}

/**
 * Whether the caller may use (`call`) or see (`list`) a handler: the visibility rules, its OAuth
 * scopes, then its guards in order, false at the first that says no. Guards come from the request's
 * one DI scope. A promise only once a guard (or its provider) answers with one.
 */
export function isAllowed(plan: CallPlan, phase: 'list' | 'call', request: CallRequest): MaybePromise<boolean> {
  if (request.hides(plan)) return false;
  if (!plan.guarded) return true;
  const ctx = request.ctx;
  if (!hasScopes(ctx.principal, plan.scopes)) return false;
  if (plan.guards.length === 0) return true;
  const execution: ExecutionContext = {
    kind: plan.kind,
    name: plan.name,
    phase,
    serverClass: plan.serverClass,
    methodName: plan.methodName,
    context: ctx,
    principal: ctx.principal,
  };
  return guardsAllow(plan, execution, request, 0);
}

/** Asks the plan's guards from `first` on, synchronously while each answers at once. */
function guardsAllow(plan: CallPlan, execution: ExecutionContext, request: CallRequest, first: number): MaybePromise<boolean> {
  for (let i = first; i < plan.guards.length; i++) {
    const allowed = after(provide(plan.guards[i] as ProviderPlan<Guard>, request), (guard) => guard.canActivate(execution));
    if (isThenable(allowed)) return Promise.resolve(allowed).then((yes) => (yes ? guardsAllow(plan, execution, request, i + 1) : false));
    if (!allowed) return false;
  }
  return true;
}

/**
 * The entries a caller sees: the cached list when nothing enabled is guarded or hidden, else the
 * entries visible to the caller whose guards allow them, all asked within the request's one scope.
 */
export async function visibleEntries<D extends { plan: CallPlan }, V>(catalog: Catalog<D, V>, request: CallRequest): Promise<readonly V[]> {
  if (!catalog.guarded() && !request.filtered) return catalog.list();
  const definitions = catalog.enabledDefinitions();
  const views = catalog.list();
  const out: V[] = [];
  for (let i = 0; i < definitions.length; i++) {
    if (await isAllowed((definitions[i] as D).plan, 'list', request)) out.push(views[i] as V);
  }
  return out;
}
