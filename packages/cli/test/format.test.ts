import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatWithBiome } from '../src/util/format.js';
import { tempDir } from './support/packed-project.js';

// What generate and create write is formatted with Biome, but never with useImportType's fix: a
// class imported for decorator metadata (a DTO parameter, an injected service, Context) must stay
// a value import, or the server refuses to start (ARM201). In a project without the biome.json of
// `armature new`, Biome's defaults have the rule on: issue 30 found five ARM201 errors that way.

const SERVER = `import { Context, McpServer, Tool } from '@armature/core';
import { PetsApi } from './pets.api.js';
import { ListPetsInput } from './pets.dto.js';

@McpServer({ name: 'pets', version: '1.0.0' })
export class PetsServer {
  constructor(private readonly api: PetsApi) {}

  @Tool({ name: 'listPets', description: 'List the pets.' })
  listPets(input: ListPetsInput, ctx: Context) {
    return this.api.list(input, ctx);
  }
}
`;

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function project(): string {
  const root = tempDir('armature-format-');
  roots.push(root);
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/pets.server.ts'), SERVER);
  return root;
}

describe('formatWithBiome', () => {
  it('in a project without biome.json, formats (Biome defaults: double quotes) and keeps every value import', () => {
    const root = project();
    const result = formatWithBiome(root, ['src/pets.server.ts']);
    expect(result.ran, result.output).toBe(true);
    const formatted = readFileSync(join(root, 'src/pets.server.ts'), 'utf8');
    expect(formatted).toContain('import { Context, McpServer, Tool } from "@armature/core";');
    expect(formatted).toContain('import { PetsApi } from "./pets.api.js";');
    expect(formatted).toContain('import { ListPetsInput } from "./pets.dto.js";');
    expect(formatted).not.toContain('type');
  });

  it('keeps them when the project turns useImportType on', () => {
    const root = project();
    writeFileSync(join(root, 'biome.json'), JSON.stringify({ linter: { rules: { style: { useImportType: 'error' } } } }));
    expect(formatWithBiome(root, ['src/pets.server.ts']).ran).toBe(true);
    expect(readFileSync(join(root, 'src/pets.server.ts'), 'utf8')).not.toContain('type');
  });

  it("reports that it did not format when the project's Biome cannot skip the rule (before Biome 2)", () => {
    const root = project();
    mkdirSync(join(root, 'node_modules/.bin'), { recursive: true });
    const fake = join(root, 'node_modules/.bin/biome');
    writeFileSync(fake, '#!/bin/sh\necho "Error: \\`--skip\\` is not expected in this context" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    expect(formatWithBiome(root, ['src/pets.server.ts']).ran).toBe(false);
    expect(readFileSync(join(root, 'src/pets.server.ts'), 'utf8')).toBe(SERVER);
  });
});
