import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Catalogue, InspectError } from './load-catalogue.js';
import { SERVER_JSON_TEXT as T } from './publish-messages.js';

type Json = Record<string, unknown>;

/** The fields of package.json that server.json is written from. */
export interface PublishManifest {
  name?: string;
  version?: string;
  description?: string;
  homepage?: string;
  mcpName?: string;
  repository?: string | { url?: string; directory?: string };
}

/** The registry's schema, vendored unchanged with its version and licence (vendor/mcp-registry). */
const SCHEMA_FILE = new URL('../../vendor/mcp-registry/server.schema.json', import.meta.url);

let schema: Json | undefined;
/** Read at the first use: only `--format server-json` needs it. */
export function serverJsonSchema(): Json {
  schema ??= JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Json;
  return schema;
}

/** `https://github.com/o/r` and its host's name, from any form npm accepts (`github:o/r`, `o/r`, `git+https://...git`). */
function repositoryOf(repository: PublishManifest['repository']): Json | undefined {
  const raw = typeof repository === 'string' ? repository : repository?.url;
  if (!raw) return undefined;
  const shorthand = /^(?:(github|gitlab|bitbucket):)?([\w.-]+)\/([\w.-]+)$/.exec(raw);
  const url = shorthand
    ? `https://${shorthand[1] ?? 'github'}.${shorthand[1] === 'bitbucket' ? 'org' : 'com'}/${shorthand[2]}/${shorthand[3]}`
    : raw
        .replace(/^git\+/, '')
        .replace(/^git@([^:]+):/, 'https://$1/')
        .replace(/^git:\/\//, 'https://')
        .replace(/\.git$/, '');
  const host = /^https?:\/\/(?:www\.)?([^/.]+)\./.exec(url)?.[1] ?? 'git';
  const directory = typeof repository === 'object' ? repository.directory : undefined;
  return { url, source: host, ...(directory ? { subfolder: directory } : {}) };
}

/** `io.github.<owner>/<package name without its scope>`, when the repository is on GitHub. */
function suggestedName(manifest: PublishManifest): string | undefined {
  const url = repositoryOf(manifest.repository)?.url;
  const owner = typeof url === 'string' ? /^https:\/\/github\.com\/([^/]+)\//.exec(url)?.[1] : undefined;
  return owner && manifest.name ? `io.github.${owner}/${manifest.name.replace(/^@[^/]+\//, '')}` : undefined;
}

/**
 * The registry's server.json for a server published on npm and run with npx over stdio: the names
 * and the description come from package.json, the title and icons from @McpServer.
 */
export function serverJsonOf(catalogue: Catalogue, manifest: PublishManifest): Json {
  if (!manifest.mcpName) throw new InspectError(T.noMcpName(suggestedName(manifest)));
  for (const field of ['name', 'version', 'description'] as const) {
    if (!manifest[field]) throw new InspectError(T.missing(field));
  }
  if (catalogue.server.version !== manifest.version) {
    throw new InspectError(T.versionMismatch(catalogue.server.name, catalogue.server.version, manifest.version as string));
  }
  const repository = repositoryOf(manifest.repository);
  return {
    $schema: serverJsonSchema().$id,
    name: manifest.mcpName,
    ...(catalogue.server.title ? { title: catalogue.server.title } : {}),
    description: manifest.description,
    version: manifest.version,
    ...(repository ? { repository } : {}),
    ...(manifest.homepage ? { websiteUrl: manifest.homepage } : {}),
    ...(catalogue.server.icons?.length ? { icons: catalogue.server.icons } : {}),
    packages: [{ registryType: 'npm', identifier: manifest.name, version: manifest.version, transport: { type: 'stdio' } }],
  };
}

interface AjvError {
  instancePath: string;
  message?: string;
}
type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

let validate: Validate | undefined;

/** The schema's complaints about `serverJson`, one line each (`/description: must NOT have more than 100 characters`). */
export function serverJsonProblems(serverJson: unknown): string[] {
  if (!validate) {
    const load = createRequire(import.meta.url);
    const Ajv = load('ajv') as new (options: object) => { compile(schema: object): Validate };
    const addFormats = load('ajv-formats') as (ajv: object) => void;
    // strict: false: the schema carries OpenAPI keywords (`example`, `discriminator`) Ajv does not know.
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(serverJsonSchema());
  }
  if (validate(serverJson)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}

/** `armature inspect --format server-json`: the file's text, or an error naming each wrong field. */
export function formatServerJson(catalogue: Catalogue, manifest: PublishManifest): string {
  const serverJson = serverJsonOf(catalogue, manifest);
  const problems = serverJsonProblems(serverJson);
  if (problems.length > 0) throw new InspectError(T.invalid(problems));
  return `${JSON.stringify(serverJson, null, 2)}\n`;
}
