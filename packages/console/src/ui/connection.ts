import {
  Client,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type LoggingMessageNotificationParams,
  type Prompt,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Root,
  StreamableHTTPClientTransport,
  type Tool,
} from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';
import { AS_IS, type TaskState } from './tasks.js';

export const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];

/** The extension id of MCP Apps (`@modelcontextprotocol/ext-apps`' EXTENSION_ID, kept out of its server bundle). */
const MCP_APPS = 'io.modelcontextprotocol/ui';
export const CLIENT_INFO = { name: 'armature-console', version: '0.1.0' };

/** What the page answers when the server asks (elicitation, sampling, roots) or tells (logs). */
export interface Answers {
  /** `signal` aborts when the server withdraws the question (the call was cancelled): the page drops it. */
  elicit(params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult>;
  sample(params: CreateMessageRequestParams, signal: AbortSignal): Promise<CreateMessageResult>;
  roots(): Root[];
  log(params: LoggingMessageNotificationParams): void;
  taskStatus(params: TaskState): void;
}

export interface Catalogue {
  readonly tools: Tool[];
  readonly resources: Resource[];
  readonly templates: ResourceTemplate[];
  readonly prompts: Prompt[];
}

export const EMPTY_CATALOGUE: Catalogue = { tools: [], resources: [], templates: [], prompts: [] };

/**
 * The official MCP client, in the page, to the console's `/mcp` (relayed to the app), on the
 * revision asked for: 2025-11-25 (initialize, a session) or 2026-07-28 (server/discover, stateless).
 */
export async function connect(revision: Revision, token: string, answers: Answers): Promise<Client> {
  const client = new Client(CLIENT_INFO, {
    capabilities: {
      elicitation: { form: {}, url: {} },
      sampling: {},
      roots: { listChanged: true },
      extensions: { [MCP_APPS]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
    },
    versionNegotiation: { mode: revision === '2026-07-28' ? 'auto' : 'legacy' },
  });
  client.setRequestHandler('elicitation/create', (request, ctx) => answers.elicit(request.params, ctx.mcpReq.signal));
  client.setRequestHandler('sampling/createMessage', (request, ctx) =>
    answers.sample(request.params as CreateMessageRequestParams, ctx.mcpReq.signal),
  );
  client.setRequestHandler('roots/list', async () => ({ roots: answers.roots() }));
  client.setNotificationHandler('notifications/message', (notification) => answers.log(notification.params));
  client.setNotificationHandler('notifications/tasks/status', { params: AS_IS }, (params) => answers.taskStatus(params as TaskState));
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?token=${encodeURIComponent(token)}`, location.href)));
  const negotiated = client.getNegotiatedProtocolVersion();
  if (negotiated !== revision) {
    await client.close();
    throw new Error(`the server does not serve ${revision} (it answered ${negotiated ?? 'nothing'})`);
  }
  if (revision === '2025-11-25' && client.getServerCapabilities()?.logging) await client.setLoggingLevel('debug');
  return client;
}

/** Everything the server lists, each list only when the server has that capability. */
export async function loadCatalogue(client: Client): Promise<Catalogue> {
  const caps = client.getServerCapabilities() ?? {};
  const [tools, resources, templates, prompts] = await Promise.all([
    // Without a cursor, each list call walks every page.
    caps.tools ? client.listTools().then((r) => r.tools) : [],
    caps.resources ? client.listResources().then((r) => r.resources) : [],
    caps.resources ? client.listResourceTemplates().then((r) => r.resourceTemplates) : [],
    caps.prompts ? client.listPrompts().then((r) => r.prompts) : [],
  ]);
  return { tools, resources, templates, prompts };
}
