import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as OpenApiGenerate from '@armature/openapi/generate';
import type { PlannedFile } from '../util/file-plan.js';
import { importPath, isNestProject, type Project } from '../util/project.js';
import { addToExportedArray, ensureNamedImports, SourceEditError } from '../util/source-edit.js';
import type { Ui } from '../util/ui.js';
import { GenerateError, type GenerateOptions, type GeneratePlan, readSource } from './generate-context.js';

const APP_FILE = 'src/app.ts';

/**
 * The project's own @armature/openapi: the generated code imports it at run time, so the
 * generator that writes that code is the same version.
 */
async function loadGenerator(project: Project): Promise<typeof OpenApiGenerate> {
  let entry: string;
  try {
    entry = createRequire(join(project.root, 'package.json')).resolve('@armature/openapi/generate');
  } catch {
    throw new GenerateError(
      `@armature/openapi is not installed in ${project.root}: the generated tools call the API through it.\nFix: npm install @armature/openapi, then run this again.`,
    );
  }
  return (await import(pathToFileURL(entry).href)) as typeof OpenApiGenerate;
}

const list = (value: string | undefined): string[] | undefined =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * `armature generate openapi <file-or-url>`: the DTO classes, the `@McpServer` class and its API
 * client for an OpenAPI document's operations (those of `--tags` / `--operations`), registered in
 * src/app.ts. The API client file is the user's (base URL, credentials): kept when it exists.
 */
export async function planOpenApi(project: Project, source: string, options: GenerateOptions, cwd: string, ui: Ui): Promise<GeneratePlan> {
  if (isNestProject(project)) {
    throw new GenerateError(
      'in a Nest project the generated server would be a Nest provider, which armature generate openapi does not write.\nFix: generate it in a plain Armature project, or add the @McpServer class it writes to a module by hand.',
    );
  }
  const remote = /^https?:\/\//.test(source);
  const location = remote || isAbsolute(source) ? source : resolve(cwd, source);
  if (!remote && !existsSync(location))
    throw new GenerateError(`no OpenAPI document at ${location}: give a file (JSON or YAML) or an http(s) URL`);
  const generator = await loadGenerator(project);
  let rendered: OpenApiGenerate.RenderedTools;
  try {
    rendered = generator.renderOpenApiTools(await generator.loadOpenApiDocument(location), {
      source,
      name: options.server,
      tags: list(options.tags),
      operations: list(options.operations),
    });
  } catch (error) {
    if (error instanceof generator.OpenApiDocumentError) throw new GenerateError(error.message);
    throw error;
  }
  for (const warning of rendered.warnings) ui.warn(warning);
  // A file this command wrote before is replaced (the document is the source); any other file at
  // that path, and the user's API client, are not without --force.
  const generatedBefore = (path: string) =>
    existsSync(join(project.root, path)) && readSource(project, path).startsWith(generator.GENERATED_HEADER);
  const files: PlannedFile[] = rendered.files
    .filter((file) => !file.userOwned || options.force || !existsSync(join(project.root, 'src', file.path)))
    .map((file) => {
      const path = `src/${file.path}`;
      return { path, action: generatedBefore(path) ? 'update' : 'create', content: file.content };
    });
  const serverFile = `src/${rendered.serverFile}`;
  if (existsSync(join(project.root, APP_FILE))) {
    try {
      const app = readSource(project, APP_FILE);
      const updated = addToExportedArray(
        ensureNamedImports(app, importPath(APP_FILE, serverFile), [rendered.serverClass]),
        'servers',
        rendered.serverClass,
      );
      if (updated !== app)
        files.push({ path: APP_FILE, action: 'update', content: updated, note: `adds ${rendered.serverClass} to servers` });
    } catch (error) {
      if (!(error instanceof SourceEditError)) throw error;
    }
  }
  return {
    files,
    summary: `${rendered.tools.length} OpenAPI tool(s) in ${rendered.serverClass}: ${rendered.tools.map((tool) => tool.toolName).join(', ')}`,
    next: `Set ${rendered.baseUrlVariable} to the API's URL; its credentials are set in src/${rendered.files.find((file) => file.userOwned)?.path}. Run this again when the document changes.`,
  };
}
