import type { Constructor } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';
import { refuseStandardDecorator } from './standard-decorators.js';

/**
 * Serves skills (SEP-2640) with this server class: each folder is a skill folder (holding a
 * SKILL.md) or a folder of them, given as a path (resolved from the working directory) or a
 * `file:` URL. Only recorded here: `createMcpApp` reads and checks the folders at start-up and
 * serves them through the skills extension (see docs/skills.md).
 *
 * @example
 * ```ts
 * @Skills(new URL('./skills', import.meta.url))
 * @McpServer({ name: 'release', version: '1.0.0' })
 * class ReleaseServer {}
 * ```
 */
export function Skills(...folders: (string | URL)[]): ClassDecorator {
  return (target, ...rest: unknown[]) => {
    refuseStandardDecorator('@Skills', rest[0]);
    getMetadataStorage().collectSkills(target as unknown as Constructor, folders);
  };
}
