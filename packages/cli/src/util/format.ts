import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * The Biome to run: the project's own, else the CLI's (the version new projects pin, so `create`
 * formats what it writes before anything is installed: a long project name would otherwise leave
 * lines over the width and fail the project's first `lint`).
 */
function biomeCommand(root: string): string[] | undefined {
  const own = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'biome.cmd' : 'biome');
  if (existsSync(own)) return [own];
  try {
    return [process.execPath, createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome')];
  } catch {
    return undefined;
  }
}

/**
 * Armature code imports classes for their decorator metadata (a tool's DTO parameter, an injected
 * service, Context): useImportType's fix would make those imports `import type`, and the server
 * would refuse to start (ARM201). It never runs on what Armature writes, whatever the project's
 * Biome settings (a project without the biome.json `armature new` writes has it on).
 */
const KEEP_VALUE_IMPORTS = '--skip=style/useImportType';

/**
 * Runs Biome (`biome check --write`, with the project's biome.json, without useImportType) on the
 * files a command wrote, so they follow its format and import order. `ran` is false when no Biome
 * could be found, or when the project's Biome cannot skip that rule (the files then stay as
 * written, which start as they are).
 */
export function formatWithBiome(root: string, files: readonly string[]): { ran: boolean; output: string } {
  const command = biomeCommand(root);
  if (files.length === 0 || !command) return { ran: false, output: '' };
  const [bin, ...args] = command as [string, ...string[]];
  const run = spawnSync(bin, [...args, 'check', '--write', '--no-errors-on-unmatched', KEEP_VALUE_IMPORTS, ...files], {
    cwd: root,
    encoding: 'utf8',
  });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim();
  return { ran: !output.includes('`--skip`'), output };
}
