import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { armature, childEnv, installedArmature, packedInstall, run, tempDir } from './support/packed-project.js';

// armature generate openapi in a user's project: made by armature new, @armature/openapi added
// as `npm install @armature/openapi` would, the @armature packages installed from their packed
// tarballs; the project's installed armature writes the tools of the Petstore fixture, the
// project still typechecks, lints and builds, and its built server (stdio, official SDK client)
// calls a Petstore on 127.0.0.1.

const FIXTURE = fileURLToPath(new URL('../../openapi/test/fixtures/petstore.yaml', import.meta.url));

describe('armature generate openapi in a project installed from packed tarballs (npm)', () => {
  it('writes tools that reach the API with the right request, and refuse bad arguments before it', async () => {
    const base = tempDir('armature-e2e-openapi-');
    const seen: Array<{ method: string; url: string; key: string | undefined; body: string }> = [];
    const api = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', key: req.headers['x-api-key'] as string | undefined, body });
        const created = req.method === 'POST' ? { id: 9, ...JSON.parse(body) } : [{ id: 1, name: 'Rex' }];
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(created));
      });
    });
    await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
    try {
      const created = await armature(['new', 'shop-mcp', '--pm', 'npm', '--yes', '--no-install'], base);
      expect(created.code, created.stderr).toBe(0);
      const root = join(base, 'shop-mcp');
      const pkgFile = join(root, 'package.json');
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { dependencies: Record<string, string> };
      pkg.dependencies['@armature/openapi'] = '^0.1.0';
      writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
      await packedInstall(root, 'npm');
      copyFileSync(FIXTURE, join(root, 'petstore.yaml'));

      const unknownTag = await installedArmature(root, ['generate', 'openapi', 'petstore.yaml', '--tags', 'users']);
      expect(unknownTag.code).toBe(1);
      expect(unknownTag.stdout + unknownTag.stderr).toContain('the document has no tag "users".\nIts tags: pets, store');
      expect(existsSync(join(root, 'src/petstore'))).toBe(false);

      const planned = await installedArmature(root, ['generate', 'openapi', 'petstore.yaml', '--tags', 'pets', '--dry-run']);
      expect(planned.code, planned.stdout + planned.stderr).toBe(0);
      expect(planned.stdout).toContain(
        [
          'Would generate 4 OpenAPI tool(s) in PetstoreServer: listPets, createPet, showPetById, deletePet (dry run: nothing written):',
          '  create    src/petstore/petstore.dto.ts',
          '  create    src/petstore/petstore.server.ts',
          '  create    src/petstore/petstore.api.ts',
          '  update    src/app.ts  (adds PetstoreServer to servers)',
        ].join('\n'),
      );
      expect(existsSync(join(root, 'src/petstore'))).toBe(false);

      const generated = await installedArmature(root, ['generate', 'openapi', 'petstore.yaml', '--tags', 'pets']);
      expect(generated.code, generated.stdout + generated.stderr).toBe(0);
      expect(generated.stdout).toContain('4 OpenAPI tool(s) in PetstoreServer: listPets, createPet, showPetById, deletePet');
      expect(readFileSync(join(root, 'src/app.ts'), 'utf8')).toContain('export const servers = [ShopServer, PetstoreServer];');

      // The API client is the user's: a longer timeout, say.
      const apiFile = join(root, 'src/petstore/petstore.api.ts');
      const client = readFileSync(apiFile, 'utf8').replace(
        "process.env.PETSTORE_API_KEY ?? ''),",
        "process.env.PETSTORE_API_KEY ?? ''),\n      timeoutMs: 10_000,",
      );
      expect(client).toContain('timeoutMs: 10_000');
      writeFileSync(apiFile, client);
      // Run again (the document changed, say): the generated files are replaced, the client kept.
      const again = await installedArmature(root, ['generate', 'openapi', 'petstore.yaml', '--tags', 'pets']);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(readFileSync(apiFile, 'utf8')).toBe(client);

      for (const script of ['typecheck', 'lint', 'build']) {
        const result = await run('npm', ['run', script], root);
        expect(result.code, `npm run ${script}\n${result.stdout}${result.stderr}`).toBe(0);
      }

      const port = (api.address() as AddressInfo).port;
      const mcp = new Client({ name: 'e2e-openapi', version: '1.0.0' });
      await mcp.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['dist/main.js'],
          cwd: root,
          env: childEnv({ PETSTORE_API_URL: `http://127.0.0.1:${port}/v1`, PETSTORE_API_KEY: 'key-9' }) as Record<string, string>,
        }),
      );
      try {
        const names = (await mcp.listTools()).tools.map((tool) => tool.name);
        expect(names).toEqual(expect.arrayContaining(['listPets', 'createPet', 'showPetById', 'deletePet']));
        expect(names).not.toContain('getInventory');

        const refused = await mcp.callTool({ name: 'createPet', arguments: { body: { name: 'x'.repeat(51) } } });
        expect(refused).toMatchObject({
          isError: true,
          content: [
            { type: 'text', text: 'Invalid arguments for tool "createPet":\nbody.name: must be shorter than or equal to 50 characters' },
          ],
        });
        expect(seen).toEqual([]);

        const list = await mcp.callTool({ name: 'listPets', arguments: { limit: 2, tag: ['dog', 'cat'] } });
        expect(list.content).toEqual([{ type: 'text', text: '[{"id":1,"name":"Rex"}]' }]);
        const pet = await mcp.callTool({ name: 'createPet', arguments: { body: { name: 'Rex', tag: 'dog' } } });
        expect(pet.structuredContent).toEqual({ id: 9, name: 'Rex', tag: 'dog' });
        expect(seen).toEqual([
          { method: 'GET', url: '/v1/pets?limit=2&tag=dog&tag=cat', key: 'key-9', body: '' },
          { method: 'POST', url: '/v1/pets', key: 'key-9', body: '{"name":"Rex","tag":"dog"}' },
        ]);
      } finally {
        await mcp.close();
      }

      // What it wrote passes the project's own inspect lint, but for the nested DTOs (schema-ref,
      // advisory: the Petstore's NewPet holds an Owner).
      const inspected = await installedArmature(root, ['inspect']);
      expect(inspected.code, inspected.stdout + inspected.stderr).toBe(0);
      const rules = inspected.stdout
        .slice(inspected.stdout.indexOf('\nLint:'))
        .split('\n')
        .slice(2)
        .map((line) => line.trim().split(/\s+/)[0]);
      expect(rules.filter((rule) => rule && rule !== 'schema-ref')).toEqual([]);

      // A project without the biome.json armature new writes: Biome's defaults turned the imports
      // that decorators read (the API client, Context) into `import type`, and the server refused to
      // start with ARM201 (issue 30). Formatted with those defaults, the output still starts.
      rmSync(join(root, 'biome.json'));
      const store = await installedArmature(root, ['generate', 'openapi', 'petstore.yaml', '--tags', 'store', '--server', 'store']);
      expect(store.code, store.stdout + store.stderr).toBe(0);
      const storeServer = readFileSync(join(root, 'src/store/store.server.ts'), 'utf8');
      expect(storeServer).toContain('import { Context, McpServer, Tool } from "@armature/core";');
      expect(storeServer).toContain('import { StoreApi } from "./store.api.js";');
      const rebuilt = await run('npm', ['run', 'build'], root);
      expect(rebuilt.code, rebuilt.stdout + rebuilt.stderr).toBe(0);
      const storeClient = new Client({ name: 'e2e-openapi-no-biome', version: '1.0.0' });
      await storeClient.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['dist/main.js'],
          cwd: root,
          env: childEnv({
            PETSTORE_API_URL: `http://127.0.0.1:${port}/v1`,
            STORE_API_URL: `http://127.0.0.1:${port}/v1`,
            STORE_API_KEY: 'key-store',
          }) as Record<string, string>,
        }),
      );
      try {
        seen.length = 0;
        const inventory = await storeClient.callTool({ name: 'getInventory', arguments: {} });
        expect(inventory.isError, JSON.stringify(inventory.content)).toBeFalsy();
        expect(seen.map(({ method, url, key }) => [method, url, key])).toEqual([['GET', '/v1/store/inventory', 'key-store']]);
      } finally {
        await storeClient.close();
      }
    } finally {
      api.closeAllConnections();
      await new Promise((done) => api.close(done));
      rmSync(base, { recursive: true, force: true });
    }
  }, 600_000);
});
