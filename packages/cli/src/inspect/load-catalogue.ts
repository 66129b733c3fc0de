import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { findAppSource } from '@armature/console';
import { describeMissingSettings, missingDecoratorSettings } from '../util/decorator-settings.js';
import { viteNodeArgs } from '../util/vite-node.js';

type Json = Record<string, unknown>;

/** What a project serves, as its clients see it in the list results. */
export interface Catalogue {
  readonly server: { name: string; version: string; title?: string; icons?: Json[] };
  readonly instructions?: string;
  readonly tools: Json[];
  readonly resources: Json[];
  readonly resourceTemplates: Json[];
  readonly prompts: Json[];
}

export class InspectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InspectError';
  }
}

/**
 * The module run under vite-node inside the project (so `@armature/core` and the entry resolve
 * exactly as the project's own code does). It finds the app the entry exports, builds it with the
 * production builder, and writes the catalogue as JSON.
 */
function loaderSource(entry: string, shown: string, out: string): string {
  return `import { writeFileSync } from 'node:fs';

const out = ${JSON.stringify(out)};
try {
  ${findAppSource(entry, shown)}
  const d = app.definition;
  const catalogue = {
    server: d.info,
    instructions: d.instructions,
    tools: [...d.toolList],
    resources: [...(d.resources?.values() ?? [])].map((r) => r.descriptor),
    resourceTemplates: [...(d.resourceTemplates ?? [])].map((t) => t.descriptor),
    prompts: [...(d.prompts?.values() ?? [])].map((p) => p.descriptor),
  };
  writeFileSync(out, JSON.stringify({ catalogue }));
  await app.close();
} catch (error) {
  let explained;
  try {
    explained = (await import('@armature/core')).explainStartupError?.(error);
  } catch {
    // no @armature/core to ask: the error as it is
  }
  const message = explained?.message ?? (error instanceof Error ? error.message : String(error));
  writeFileSync(out, JSON.stringify({ error: message }));
}
process.exit(0);
`;
}

/** Loads the catalogue of the project at `root` from `entry` (default `src/app.ts`). */
export async function loadCatalogue(root: string, entry = 'src/app.ts', timeoutMs = 60_000): Promise<Catalogue> {
  const entryPath = resolve(root, entry);
  if (!existsSync(entryPath)) {
    throw new InspectError(
      `${relative(root, entryPath) || entry} does not exist.\n` +
        'Fix: armature inspect <entry>, where the entry exports createApp(), servers, or the @McpServer classes (not the module that starts the transport)',
    );
  }
  const missing = missingDecoratorSettings(root);
  if (missing.length > 0) throw new InspectError(describeMissingSettings(missing));
  // Inside the project, so that bare imports resolve from its node_modules and its tsconfig applies.
  const loader = join(root, `.armature-inspect-${randomUUID().slice(0, 8)}.ts`);
  const args = viteNodeArgs(root, loader);
  const outDir = mkdtempSync(join(tmpdir(), 'armature-inspect-'));
  const out = join(outDir, 'catalogue.json');
  writeFileSync(loader, loaderSource(entryPath, relative(root, entryPath), out));
  try {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((done, fail) => {
      const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new InspectError(`loading ${entry} took longer than ${timeoutMs / 1000} s`));
      }, timeoutMs);
      child.on('error', (error) => {
        clearTimeout(timer);
        fail(error);
      });
      child.on('close', (exit) => {
        clearTimeout(timer);
        done({ code: exit, stderr });
      });
    });
    if (!existsSync(out)) {
      throw new InspectError(`loading ${entry} failed (exit code ${code}):\n${stderr.trim()}`);
    }
    const result = JSON.parse(readFileSync(out, 'utf8')) as { catalogue?: Catalogue; error?: string };
    if (result.error !== undefined) throw new InspectError(result.error);
    return result.catalogue as Catalogue;
  } finally {
    rmSync(loader, { force: true });
    rmSync(outDir, { recursive: true, force: true });
  }
}
