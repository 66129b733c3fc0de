import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// .ci/lint-seams.mjs (run by `pnpm lint:layers`) on a repository made for the test: a patch of a
// library object's callback outside packages/core/src/seams/ fails it, naming the file and line.

const SCRIPT = fileURLToPath(new URL('../../../.ci/lint-seams.mjs', import.meta.url));
const roots: string[] = [];

function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'armature-lint-seams-'));
  roots.push(root);
  mkdirSync(join(root, 'packages/core/src/seams'), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function lint(root: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, output: run.stdout + run.stderr };
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('lint:seams', () => {
  it.each([
    ['transport.onmessage = (message) => handle(message);', 'transport.onmessage'],
    ['server.onclose = () => undefined;', 'server.onclose'],
    ['this.mcp.connect = async (transport) => undefined;', 'this.mcp.connect'],
    ['sdk.transport.send = send;', 'sdk.transport.send'],
  ])('fails on `%s` outside seams/', (patch, target) => {
    const root = repository({ 'packages/core/src/engine/front.ts': `export function front() {\n  ${patch}\n}\n` });
    const { status, output } = lint(root);
    expect(status).toBe(1);
    expect(output).toContain(`packages/core/src/engine/front.ts:2: an assignment to a library object's callback (${target})`);
  });

  it('passes the same patch inside seams/, and comparisons or arrow functions anywhere', () => {
    const root = repository({
      'packages/core/src/seams/front.ts': 'export function front() {\n  transport.onmessage = (message) => handle(message);\n}\n',
      'packages/core/src/engine/front.ts': 'export const closed = transport.onclose === undefined;\nconst send = (m) => m;\n',
    });
    expect(lint(root)).toMatchObject({ status: 0 });
  });
});
