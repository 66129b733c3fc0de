import { callMessages } from '../messages/call-messages.js';
import type { ValidationIssue } from '../messages/validation-issue.js';
import type { ArgumentLimits } from '../metadata/metadata-args.js';
import { checkArgumentLimits } from './argument-limits.js';
import { FALLBACK } from './compiled-dto-runtime.js';
import type { DtoDescriptor } from './dto-descriptor.js';
import { type ValidationOutcome, validateInput } from './dto-validator.js';
import type { JsonValidator } from './json-schema-validator.js';

/** How a call's untrusted arguments become what the method receives; decided at start-up. */
export type InputPlan =
  /** The method takes no arguments: any property sent is reported. */
  | { readonly kind: 'none' }
  /** A DTO class: limits, the advertised shape, then class-transformer and class-validator. */
  | { readonly kind: 'dto'; readonly dto: DtoDescriptor; readonly limits: Readonly<Required<ArgumentLimits>> }
  /** A hand-written JSON Schema (the raw escape hatch): limits, then the compiled schema. */
  | { readonly kind: 'schema'; readonly validate: JsonValidator; readonly limits: Readonly<Required<ArgumentLimits>> }
  /** Values Armature made itself (a completion's argument): passed on as they are. */
  | { readonly kind: 'raw' };

/**
 * Checks untrusted arguments against `plan`. Limits come first (before anything converts the
 * value); then every problem is reported at once: unknown and missing properties and wrong types
 * from the shape check first, then the constraint failures class-validator finds on the other
 * properties (in declaration order), nested paths dotted. The answer is synchronous when no
 * library has to run (the compiled DTO path), so a call does not wait a promise for nothing.
 */
export function prepareArguments(plan: InputPlan, args: unknown): ValidationOutcome | Promise<ValidationOutcome> {
  switch (plan.kind) {
    case 'raw':
      return { ok: true, value: args };
    case 'none': {
      const keys = args !== null && typeof args === 'object' ? Object.keys(args) : [];
      if (keys.length === 0) return { ok: true, value: undefined };
      return { ok: false, issues: keys.map((key) => ({ path: key, message: callMessages.noArgumentsTaken() })) };
    }
    case 'schema': {
      const raw = args ?? {};
      const limit = checkArgumentLimits(raw, plan.limits);
      return limit ? { ok: false, issues: [limit] } : plan.validate(raw);
    }
    case 'dto': {
      const raw = args ?? {};
      const limit = checkArgumentLimits(raw, plan.limits);
      if (limit) return { ok: false, issues: [limit] };
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        return { ok: false, issues: [{ path: '', message: 'arguments must be a JSON object' }] };
      }
      const filled = plan.dto.fill ? plan.dto.fill(raw as Record<string, unknown>) : raw;
      const shape = plan.dto.shape(filled);
      if (shape.ok) {
        const compiled = plan.dto.compiled?.(filled);
        return compiled === undefined || compiled === FALLBACK ? validateInput(plan.dto.dto, filled, plan.dto.async) : compiled;
      }
      return shapeFailure(plan.dto, filled, shape.issues);
    }
  }
}

/**
 * The shape's issues, then the constraint failures found on the rest of the payload: by the compiled
 * DTO when it covers the payload (no library work for a wrongly shaped call either), else by
 * class-transformer + class-validator.
 */
function shapeFailure(dto: DtoDescriptor, raw: object, shapeIssues: ValidationIssue[]): ValidationOutcome | Promise<ValidationOutcome> {
  const compiled = compiledOutcome(dto, raw);
  if (compiled !== FALLBACK) return { ok: false, issues: [...shapeIssues, ...uncovered(compiled, shapeIssues)] };
  return librariesAfterShape(dto, raw, shapeIssues);
}

/** The compiled DTO's answer, undefined when a transform or constraint threw, FALLBACK when it does not cover `raw`. */
function compiledOutcome(dto: DtoDescriptor, raw: object): ValidationOutcome | undefined | typeof FALLBACK {
  if (!dto.compiled) return FALLBACK;
  try {
    return dto.compiled(raw);
  } catch {
    // A transform that cannot cope with the wrong shape: the shape's issues already say what to fix.
    return undefined;
  }
}

async function librariesAfterShape(dto: DtoDescriptor, raw: object, shapeIssues: ValidationIssue[]): Promise<ValidationOutcome> {
  let outcome: ValidationOutcome | undefined;
  try {
    outcome = await validateInput(dto.dto, raw, dto.async);
  } catch {
    outcome = undefined; // as above
  }
  return { ok: false, issues: [...shapeIssues, ...uncovered(outcome, shapeIssues)] };
}

/**
 * The constraint findings on a payload whose shape is already known to be wrong, minus those at
 * (or under) a path the shape check reported, and `each value` findings over an item it reported:
 * one message per problem, the shape's first.
 */
function uncovered(outcome: ValidationOutcome | undefined, shapeIssues: readonly ValidationIssue[]): ValidationIssue[] {
  if (!outcome || outcome.ok) return [];
  const covered = shapeIssues.map((issue) => issue.path);
  return outcome.issues.filter(
    (issue) =>
      !covered.some(
        (path) =>
          path === '' ||
          issue.path === path ||
          issue.path.startsWith(`${path}.`) ||
          (issue.message.startsWith('each value') && path.startsWith(`${issue.path}.`)),
      ),
  );
}
