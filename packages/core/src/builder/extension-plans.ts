import type { Context } from '../context/context.js';
import { EXTENSION_VIEW, type ExtensionContext, type ExtensionViews } from '../context/extension.js';
import type { Constructor } from '../metadata/metadata-args.js';
import type { PlanContext } from './build-call-plan.js';
import type { CallPlan } from './definitions.js';

// What an extension's methods, resources and templates are planned with: a class named after the
// extension (guards and interceptors are told which class a call is for), and the request's view.

/** Input handed on as the client sent it (a resource's none, a template's variables). */
export const RAW = Object.freeze({ kind: 'raw' as const });

/** The class guards and interceptors see for extension `id`'s calls: `Extension(<id>)`. */
export function extensionClass(id: string): Constructor {
  const className = `Extension(${id})`;
  return { [className]: class {} }[className] as Constructor;
}

/** The Context's view for extension `id` (the runtime's Context makes it). */
export function viewOf(ctx: Context, id: string): ExtensionContext {
  return (ctx as unknown as ExtensionViews)[EXTENSION_VIEW](id);
}

/** A plan under the app's guards, interceptors, rate limits and tags (as a remote part's entries). */
export function planOf(
  planning: PlanContext,
  serverClass: Constructor,
  kind: CallPlan['kind'],
  name: string,
  where: string,
  input: CallPlan['input'],
  invoke: CallPlan['invoke'],
): CallPlan {
  return Object.freeze({ ...planning.sharedBase(serverClass), kind, name, where, methodName: name, input, needsInstance: false, invoke });
}
