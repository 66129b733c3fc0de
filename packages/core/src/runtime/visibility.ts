import type { AuthInfo } from '@modelcontextprotocol/server';
import type { CallPlan } from '../builder/definitions.js';
import type { Context } from '../context/context.js';
import { visibilityMessages } from '../messages/visibility-messages.js';
import type { HandlerKind } from '../metadata/metadata-args.js';
import { principalKey } from './principal-key.js';
import { RequestContext } from './request-context.js';

/** The four run-time catalogues (`app.tools`, `app.resources`, `app.resourceTemplates`, `app.prompts`). */
export type CatalogName = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/**
 * Whom a visibility rule is for: the session a handler's `ctx` belongs to (`ctx` itself), a session
 * by id (`{ session }`, the `Mcp-Session-Id`), or every session of one caller (`{ principal: ctx.principal }`).
 */
export type VisibilityTarget = Context | { readonly session: string } | { readonly principal: AuthInfo };

/** What a rule shows or hides: the entries carrying one of `tags`, and those named in `names` (URIs for resources). */
export interface VisibilitySelector {
  readonly tags?: readonly string[];
  readonly names?: readonly string[];
}

/** Who a request or connection serves, as far as rules go. */
export interface Caller {
  readonly sessionId?: string;
  readonly principal?: AuthInfo;
}

interface Rule {
  readonly catalog: CatalogName;
  readonly show: boolean;
  readonly names: ReadonlySet<string>;
  readonly tags: ReadonlySet<string>;
}

/** The catalog a plan's handler is listed in (an extension's method is in none: only tags select it). */
const CATALOG_OF: Record<HandlerKind, CatalogName> & { method?: CatalogName } = {
  tool: 'tools',
  resource: 'resources',
  resourceTemplate: 'resourceTemplates',
  prompt: 'prompts',
};

const sessionKey = (id: string) => `session:${id}`;

/**
 * Which catalogue entries each caller sees, on top of guards: entries with one of the app's
 * `hiddenTags` are hidden from everyone, and rules added at run time show or hide entries (by tag
 * or name) for one session or one principal. The latest matching rule wins, a session's over its
 * principal's. A hidden entry is answered like a missing one, in lists and calls alike.
 * Rules live in this process (they are about the clients connected to it).
 */
export class CatalogVisibility {
  private readonly hidden: ReadonlySet<string>;
  private readonly rules = new Map<string, Rule[]>();

  constructor(hiddenTags: readonly string[] = []) {
    this.hidden = new Set(hiddenTags);
  }

  /** False while nothing can be hidden from anyone: lists and calls need not ask. */
  get active(): boolean {
    return this.hidden.size > 0 || this.rules.size > 0;
  }

  /** Whether `caller` may see and use the handler of `plan`. */
  allows(plan: CallPlan, caller: Caller): boolean {
    let visible = !plan.tags.some((tag) => this.hidden.has(tag));
    if (this.rules.size === 0) return visible;
    const catalog = CATALOG_OF[plan.kind];
    const principal = principalKey(caller.principal);
    for (const key of [principal, caller.sessionId === undefined ? undefined : sessionKey(caller.sessionId)]) {
      for (const rule of (key && this.rules.get(key)) || []) {
        if (rule.catalog === catalog && (rule.names.has(plan.name) || plan.tags.some((tag) => rule.tags.has(tag)))) visible = rule.show;
      }
    }
    return visible;
  }

  /** Adds a rule showing or hiding `selector` in `catalog` for `target` (checked: a bad one throws). */
  add(catalog: CatalogName, target: VisibilityTarget, show: boolean, selector: VisibilitySelector): void {
    const key = keyOf(target);
    const { tags = [], names = [] } = (selector ?? {}) as VisibilitySelector;
    const strings = (list: unknown) => Array.isArray(list) && list.every((item) => typeof item === 'string' && item !== '');
    if (!strings(tags) || !strings(names) || tags.length + names.length === 0)
      throw new TypeError(visibilityMessages.selectorInvalid(JSON.stringify(selector) ?? String(selector)));
    const rules = this.rules.get(key) ?? [];
    rules.push(Object.freeze({ catalog, show, names: new Set(names), tags: new Set(tags) }));
    this.rules.set(key, rules);
  }

  /** Drops the rules `target` has in `catalog`; true when there were any. */
  reset(catalog: CatalogName, target: VisibilityTarget): boolean {
    const key = keyOf(target);
    const rules = this.rules.get(key);
    if (!rules) return false;
    const kept = rules.filter((rule) => rule.catalog !== catalog);
    if (kept.length > 0) this.rules.set(key, kept);
    else this.rules.delete(key);
    return kept.length < rules.length;
  }

  /** Forgets a closed session's rules (its id is never used again). */
  forgetSession(sessionId: string): void {
    this.rules.delete(sessionKey(sessionId));
  }
}

/** Whether a connection serving `caller` is one `target` names. */
export function isTargeted(target: VisibilityTarget, caller: Caller): boolean {
  const key = keyOf(target);
  return (caller.sessionId !== undefined && key === sessionKey(caller.sessionId)) || key === principalKey(caller.principal);
}

function keyOf(target: VisibilityTarget): string {
  if (target instanceof RequestContext) {
    const session = target.source.sessionId;
    if (session === undefined) throw new TypeError(visibilityMessages.noSession());
    return sessionKey(session);
  }
  const given = target as { session?: unknown; principal?: AuthInfo } | undefined;
  if (typeof given?.session === 'string' && given.session !== '') return sessionKey(given.session);
  const principal = given?.principal && typeof given.principal.clientId === 'string' ? principalKey(given.principal) : undefined;
  if (principal) return principal;
  throw new TypeError(visibilityMessages.targetInvalid(JSON.stringify(target) ?? String(target)));
}
