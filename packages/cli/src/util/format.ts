import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs the project's own Biome (`biome check --write`) on the files a command wrote, so they follow
 * its format and import order. Returns false when the project has no Biome installed.
 */
export function formatWithBiome(root: string, files: readonly string[]): { ran: boolean; output: string } {
  const biome = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'biome.cmd' : 'biome');
  if (files.length === 0 || !existsSync(biome)) return { ran: false, output: '' };
  const run = spawnSync(biome, ['check', '--write', '--no-errors-on-unmatched', ...files], { cwd: root, encoding: 'utf8' });
  return { ran: true, output: `${run.stdout ?? ''}${run.stderr ?? ''}`.trim() };
}
