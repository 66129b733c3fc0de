import { getMetadataStorage as getValidationStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import type { ValidationIssue } from '../messages/validation-issue.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { findTypeMetadata, hasExposeOrExclude, transformerStorageReadable, transformsToClass } from '../seams/class-transformer.js';
import { isOptionalCondition, validatorInternalsReadable } from '../seams/class-validator.js';
import * as runtime from './compiled-dto-runtime.js';
import { builders, type ConstraintInstance, checkers, FALLBACK, type Fallback } from './compiled-dto-runtime.js';
import type { ValidationOutcome } from './dto-validator.js';

/**
 * plainToInstance + validateSync + the `path: message` flattening, compiled for one DTO: the
 * instance or the issues, or FALLBACK for an input the compiled code does not cover.
 */
export type CompiledDto = (plain: object) => ValidationOutcome | Fallback;

interface ConstraintMetadata {
  name?: string;
  async: boolean;
  instance: ConstraintInstance;
}

// The runtime helpers the generated code calls, bound to locals once (a module namespace is slower to read).
const HELPERS = [
  'convert',
  'copyKey',
  'validateEach',
  'messageOf',
  'flushConstraints',
  'join',
  'isNestedObject',
  'nestedNotObject',
  'validateNested',
  'TRANSFORM_EXECUTOR_OPTIONS',
] as const;

const BUILT_IN_TYPES = new Set<unknown>([undefined, String, Number, Boolean, Date, Object]);

/**
 * Compiles `dto` (and every class its `@Type`s name) into generated functions, once, at start-up.
 * Undefined when the DTO uses something the generated code does not mirror (`@Expose`/`@Exclude`,
 * a constructor that needs arguments, no code generation allowed) or a seam it reads through is off:
 * the libraries then run as before.
 * Only for DTOs whose constraints are all synchronous (the caller checks).
 */
export function compileDto(dto: Constructor): CompiledDto | undefined {
  // The generated code mirrors what it reads through these seams: without them, the libraries run.
  if (!transformerStorageReadable() || !validatorInternalsReadable()) return undefined;
  const pending: Function[] = [];
  if (!compileClass(dto, pending)) return undefined;
  for (let i = 0; i < pending.length; i++) {
    if (!compileClass(pending[i] as Function, pending)) return undefined;
  }
  const build = builders.get(dto) as runtime.BuildInstance;
  const check = checkers.get(dto);
  if (!check) return undefined;
  return (plain) => {
    if (Object.getPrototypeOf(plain) !== Object.prototype) return FALLBACK;
    const instance = build(plain as Record<string, unknown>);
    if (instance === FALLBACK) return FALLBACK;
    const issues: ValidationIssue[] = [];
    if (check(instance, '', issues) === FALLBACK) return FALLBACK;
    return issues.length === 0 ? { ok: true, value: instance } : { ok: false, issues };
  };
}

const compiling = new WeakMap<Function, boolean>();

/** Compiles one class's builder and checker (queueing the classes it names); false when it cannot. */
function compileClass(cls: Function, pending: Function[]): boolean {
  const known = compiling.get(cls);
  if (known !== undefined) return known;
  compiling.set(cls, true);
  const ok = generate(cls, pending);
  compiling.set(cls, ok);
  return ok;
}

function generate(cls: Function, pending: Function[]): boolean {
  if (hasExposeOrExclude(cls)) return false;
  try {
    const sample = new (cls as new () => object)();
    if (sample.constructor !== cls) return false;
  } catch {
    return false;
  }
  const storage = getValidationStorage();
  const metas = storage.getTargetValidationMetadatas(cls, undefined as unknown as string, false, false, undefined);
  const grouped = storage.groupByPropertyName(metas);
  const constants: unknown[] = [];
  const ref = (value: unknown): string => {
    constants.push(value);
    return `K[${constants.length - 1}]`;
  };

  const build = buildSource(cls, Object.keys(grouped), ref, pending);
  const check = metas.length > 0 ? checkSource(cls, grouped, ref) : undefined;
  let made: { build: runtime.BuildInstance; check?: runtime.CheckInstance };
  try {
    const helpers = `const { ${HELPERS.join(', ')} } = R;`;
    made = new Function('K', 'R', 'FB', `"use strict";\n${helpers}\nreturn {\nbuild: ${build},\ncheck: ${check ?? 'undefined'}\n};`)(
      constants,
      runtime,
      FALLBACK,
    );
  } catch {
    return false; // code generation refused (--disallow-code-generation-from-strings)
  }
  builders.set(cls, made.build);
  if (made.check) checkers.set(cls, made.check);
  return true;
}

/** The plainToInstance mirror: `new cls()`, then each key of the plain object in its order. */
function buildSource(cls: Function, names: string[], ref: (value: unknown) => string, pending: Function[]): string {
  const cases: string[] = [];
  for (const name of names) {
    const key = JSON.stringify(name);
    const descriptor = Object.getOwnPropertyDescriptor(cls.prototype, name);
    if (name === '__proto__' || name === 'constructor' || (descriptor && !descriptor.set)) {
      cases.push(`case ${key}: break;`);
      continue;
    }
    const meta = findTypeMetadata(cls, name);
    let type: unknown;
    if (meta) {
      // A @Type that reads its options, picks a discriminated subtype or makes a Map: resolved per call.
      if (meta.options?.discriminator || meta.reflectedType === Map || (meta.typeFunction && meta.typeFunction.length > 0)) continue;
      type = meta.typeFunction ? meta.typeFunction() : meta.reflectedType;
      if (!BUILT_IN_TYPES.has(type)) {
        if (typeof type !== 'function' || type === Buffer) continue;
        pending.push(type);
      }
    }
    const transforms = transformsToClass(cls, name);
    const converted =
      meta === undefined
        ? `(v === null || typeof v !== 'object') ? v : convert(v, undefined, undefined)`
        : `convert(v, ${ref(type)}, ${ref(meta.reflectedType)})`;
    const lines = [
      `case ${key}: {`,
      `if (o[k] instanceof Function) break;`,
      `const v = p[k];`,
      // exposeUnsetFields (on by default) assigns even an undefined result.
      `if (v === undefined) { o[k] = o[k]; break; }`,
      `if (v instanceof Map) return FB;`,
      `let x = ${converted};`,
      `if (x === FB) return FB;`,
      ...transforms.map((t) => `x = ${ref(t.transformFn)}({ value: x, key: k, obj: p, type: 0, options: TRANSFORM_EXECUTOR_OPTIONS });`),
      `o[k] = x;`,
      `break; }`,
    ];
    cases.push(lines.join('\n'));
  }
  return `function build(p) {
const o = new ${ref(cls)}();
const ks = Object.keys(p);
for (let i = 0; i < ks.length; i++) {
const k = ks[i];
switch (k) {
${cases.join('\n')}
default: if (copyKey(${ref(cls)}, o, p, k) === FB) return FB;
}
}
return o;
}`;
}

/** The ValidationExecutor.execute mirror: unknown keys first, then each property in class-validator's order. */
function checkSource(cls: Function, grouped: Record<string, ValidationMetadata[]>, ref: (value: unknown) => string): string {
  const blocks: string[] = [];
  const storage = getValidationStorage();
  for (const name of Object.keys(grouped)) {
    const all = grouped[name] as ValidationMetadata[];
    const defined = all.filter((m) => m.type === ValidationTypes.IS_DEFINED);
    const rest = all.filter((m) => m.type !== ValidationTypes.IS_DEFINED && m.type !== ValidationTypes.WHITELIST);
    const custom = rest.filter((m) => m.type === ValidationTypes.CUSTOM_VALIDATION);
    const nested = rest.filter((m) => m.type === ValidationTypes.NESTED_VALIDATION);
    const conditions = rest.filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION);
    const key = JSON.stringify(name);
    const lines: string[] = [`{ const v = o[${key}];`];
    if (conditions.length > 0) {
      // @IsOptional's condition, written out (the same two reads of the property); others are called.
      const calls = conditions.map((m, i) =>
        m.name === 'isOptional' && isOptionalCondition(m.constraints?.[0])
          ? `const c${i} = o[${key}] !== null && o[${key}] !== undefined;`
          : `const c${i} = ${ref((m.constraints as Function[])[0])}(o, v);`,
      );
      lines.push(...calls, `if (${conditions.map((_, i) => `c${i}`).join(' && ')}) {`);
    } else lines.push('{');
    lines.push('let c;');
    for (const meta of [...defined, ...custom]) {
      const m = ref(meta);
      if (meta.validateIf) lines.push(`if (${m}.validateIf(o, v)) {`);
      else lines.push('{');
      for (const constraint of storage.getTargetValidatorConstraints(meta.constraintCls) as unknown as ConstraintMetadata[]) {
        if (constraint.async) continue; // validateSync ignores asynchronous constraints
        const instance = ref(constraint.instance);
        const type = JSON.stringify(constraint.name ? constraint.name : meta.type);
        const args = `{ targetName: tn, property: ${JSON.stringify(meta.propertyName)}, object: o, value: v, constraints: ${m}.constraints }`;
        const valid = meta.each
          ? `(Array.isArray(v) || v instanceof Set || v instanceof Map) ? validateEach(${instance}, v, a) : ${instance}.validate(v, a)`
          : `${instance}.validate(v, a)`;
        lines.push(`{ const a = ${args};`, `if (!(${valid})) (c ??= {})[${type}] = messageOf(${m}, ${instance}, o, v); }`);
      }
      lines.push('}');
    }
    if (nested.length > 0) {
      const n = ref(nested);
      lines.push(
        'if (v !== undefined && isNestedObject(v)) {',
        `if (c !== undefined) flushConstraints(c, join(path, ${key}), ${key}, out);`,
        `if (validateNested(${n}, v, join(path, ${key}), out) === FB) return FB;`,
        '} else {',
        `if (v !== undefined) c = nestedNotObject(${n}, v, c);`,
        `if (c !== undefined) flushConstraints(c, join(path, ${key}), ${key}, out);`,
        '}',
      );
    } else {
      lines.push(`if (c !== undefined) flushConstraints(c, join(path, ${key}), ${key}, out);`);
    }
    lines.push('} }');
    blocks.push(lines.join('\n'));
  }
  // ValidationArguments.targetName, read once per object (Function#name is a slow accessor in V8).
  const targetName = `o.constructor === ${ref(cls)} ? ${JSON.stringify(cls.name)} : o.constructor ? o.constructor.name : undefined`;
  return `function check(o, path, out) {
const tn = ${targetName};
for (const k in o) {
if (!Object.hasOwn(o, k)) continue;
const g = ${ref(grouped)}[k];
if (!g || g.length === 0) out.push({ path: join(path, k), message: 'unknown property; remove it' });
}
${blocks.join('\n')}
return undefined;
}`;
}
