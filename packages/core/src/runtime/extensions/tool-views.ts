import type { Tool } from '@modelcontextprotocol/server';
import type { NegotiatedExtension, ToolDefinition } from '../../builder/definitions.js';
import { visibleEntries } from '../access.js';
import type { CallRequest } from '../call-request.js';
import { type Catalog, paginate } from '../catalog.js';
import { negotiates } from './negotiation.js';

// How extensions that change tools (`host.extendTool`) are seen per client: a client that
// negotiated an extension sees its change, the others see the tool as its class declared it, or
// not at all when only the extension's clients may call it.

/** What of the served app this needs (served-app.ts builds on this module, so not `ServedApp` itself). */
interface Tools {
  readonly tools: Catalog<ToolDefinition, Tool>;
  readonly pageSize: number;
}

/** Per list of enabled tools (the catalog's, rebuilt on each change): the extensions that change any of them. */
const extending = new WeakMap<readonly object[], readonly NegotiatedExtension[]>();

/** The extensions that change an enabled tool, worked out once per catalog change. */
function extensionsOfTools(app: Pick<Tools, 'tools'>): readonly NegotiatedExtension[] {
  const tools = app.tools.enabledDefinitions();
  let found = extending.get(tools);
  if (found === undefined) {
    const byId = new Map<string, NegotiatedExtension>();
    for (const tool of tools) for (const change of tool.extended?.changes ?? []) byId.set(change.extension.id, change.extension);
    found = [...byId.values()];
    extending.set(tools, found);
  }
  return found;
}

/** Whether the caller sees every tool as served (`descriptor`): no enabled tool is changed by an extension it did not negotiate. */
export function seesServedTools(app: Pick<Tools, 'tools'>, call: CallRequest): boolean {
  const extensions = extensionsOfTools(app);
  return extensions.length === 0 || extensions.every((extension) => negotiates(call, extension));
}

/** Whether the caller may call `tool`: no extension that keeps it to its own clients is one it did not negotiate. */
export function mayCall(tool: ToolDefinition, call: CallRequest): boolean {
  return tool.extended?.changes.every((change) => !change.exclusive || negotiates(call, change.extension)) ?? true;
}

/** `tool` as the caller sees it: with the changes of the extensions it negotiated, or undefined when hidden from it. */
function viewOf(tool: ToolDefinition, served: Tool, call: CallRequest): Tool | undefined {
  const { extended } = tool;
  if (!extended) return served;
  let meta: Record<string, unknown> | undefined;
  let all = true;
  for (const change of extended.changes) {
    if (negotiates(call, change.extension)) meta = { ...meta, ...change.meta };
    else if (change.exclusive) return undefined;
    else all = false;
  }
  if (all) return served;
  if (!meta) return extended.plain as Tool;
  return { ...extended.plain, _meta: { ...extended.plain._meta, ...meta } } as Tool;
}

/** The tools the caller sees (its guards asked), each as the extensions it negotiated show it. */
export async function visibleTools(app: Pick<Tools, 'tools'>, call: CallRequest): Promise<readonly Tool[]> {
  const views = await visibleEntries(app.tools, call);
  if (seesServedTools(app, call)) return views;
  return views.flatMap((view) => {
    const tool = app.tools.get(view.name);
    const seen = tool ? viewOf(tool, view, call) : view;
    return seen ? [seen] : [];
  });
}

/** One page of `tools/list` for a caller that does not see every tool as served (see `visibleTools`). */
export async function toolsPageFor(app: Tools, cursor: string | undefined, call: CallRequest) {
  const { items, nextCursor } = paginate(await visibleTools(app, call), cursor, app.pageSize);
  return { tools: items, ...(nextCursor ? { nextCursor } : {}) };
}
