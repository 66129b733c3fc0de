import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PlannedFile } from '../util/file-plan.js';
import { kebabCase, serverBaseName, serverClassName } from '../util/names.js';
import { findServers, importPath, type Project } from '../util/project.js';
import { addToExportedArray, ensureNamedImports, SourceEditError } from '../util/source-edit.js';
import { tsLiteral } from '../util/ts-literal.js';
import { GenerateError, type GeneratePlan, readSource } from './generate-context.js';
import { importLine } from './render.js';

const APP_FILE = 'src/app.ts';

/** `armature generate server <name>`: an empty `@McpServer` class, registered in src/app.ts, and its test. */
export function planServer(project: Project, name: string): GeneratePlan {
  const base = serverBaseName(kebabCase(name));
  if (!/^[a-z]/.test(base)) throw new GenerateError(`"${name}" cannot name a server: start it with a letter`);
  const className = serverClassName(base);
  const existing = findServers(project.root).find((s) => s.className === className);
  if (existing) throw new GenerateError(`${className} already exists (${existing.file}).`);
  const file = `src/${base}/${base}.server.ts`;
  const testFile = `test/${base}/${base}.server.test.ts`;
  const files: PlannedFile[] = [
    {
      path: file,
      action: 'create',
      content: `import { McpServer } from '@armature/core';

/**
 * TODO: what this server's tools are for. Add some with
 * \`armature generate tool <name> --server ${base}\`.
 */
@McpServer({ name: ${tsLiteral(base)}, version: '0.1.0' })
export class ${className} {}
`,
    },
  ];

  let registered = false;
  if (existsSync(join(project.root, APP_FILE))) {
    try {
      const app = readSource(project, APP_FILE);
      const updated = addToExportedArray(ensureNamedImports(app, importPath(APP_FILE, file), [className]), 'servers', className);
      files.push({ path: APP_FILE, action: 'update', content: updated, note: `adds ${className} to servers` });
      registered = true;
    } catch (error) {
      if (!(error instanceof SourceEditError)) throw error;
    }
  }

  const servedCheck = registered
    ? `
  it('is served by the app', () => {
    expect(servers).toContain(${className});
  });
`
    : '';
  const imports = [
    "import { createTestingApp } from '@armature/testing';",
    "import { describe, expect, it } from 'vitest';",
    ...(registered ? [importLine(['servers'], importPath(testFile, APP_FILE))] : []),
    importLine([className], importPath(testFile, file)),
  ];
  files.push({
    path: testFile,
    action: 'create',
    content: `${imports.join('\n')}

describe('${className}', () => {${servedCheck}
  it('builds, and each of its tools has a description and a readOnlyHint', async () => {
    const t = await createTestingApp({ servers: [${className}] }).compile();
    try {
      expect(t.client.getServerVersion()).toMatchObject({ name: ${tsLiteral(base)}, version: '0.1.0' });
      for (const tool of await t.listTools()) {
        expect(tool.description, tool.name).toBeTruthy();
        expect(tool.annotations?.readOnlyHint, tool.name).toBeTypeOf('boolean');
      }
    } finally {
      await t.close();
    }
  });
});
`,
  });
  return {
    files,
    summary: `server ${className}`,
    next: registered
      ? `Add tools with: armature generate tool <name> --server ${base}`
      : `Pass ${className} to createMcpApp (src/app.ts has no \`export const servers = [...]\` to add it to).`,
  };
}
