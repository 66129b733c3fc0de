import { fileURLToPath } from 'node:url';
import { McpError } from '../../context/errors.js';
import { defineExtension, type Extension, type ExtensionHost } from '../../context/extension.js';
import { skillErrors, skillProblems } from '../../messages/skill-messages.js';
import type { Constructor } from '../../metadata/metadata-args.js';
import { getMetadataStorage } from '../../metadata/metadata-storage.js';
import { DEFAULT_SKILL_LIMITS, type LoadedSkill, loadSkill, type SkillLimits, skillFoldersIn } from './skill-folders.js';

// The skills extension (SEP-2640, final): skills/list, skills/get, the skill files as skill://
// resources with their digests, and resources/directory/read. Written on the public extension
// interface, as any package could.

/** The extension's id, in client and server capabilities. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

const INVALID_PARAMS = -32602;
const PAGE_SIZE = 100;

/** What `skills()` takes. */
export interface SkillsOptions {
  /**
   * Folders to serve skills from: a skill folder (holding a SKILL.md), or a folder of skill
   * folders. Relative paths are resolved from the working directory. The folders of the app's
   * `@Skills` classes are served too.
   */
  dirs?: readonly string[];
  /**
   * How long clients may keep skills/list, skills/get and directory answers (`ttlMs`) and whether
   * a shared cache may (`scope: 'public'`) or only the client's own (`'private'`). Default
   * `{ ttlMs: 0, scope: 'private' }`, as the official SDK's.
   */
  cache?: { ttlMs?: number; scope?: 'public' | 'private' };
  /** Publication limits per skill; default SEP-2640's: 512 files, 16 MiB. */
  limits?: Partial<SkillLimits>;
}

/** The skills served, looked up by URI (a client's URI is never turned into a path). */
class SkillCatalog {
  readonly skills: LoadedSkill[] = [];
  readonly bySkillMd = new Map<string, LoadedSkill>();
  readonly files = new Map<string, import('./skill-folders.js').SkillFile>();
  readonly directories = new Map<string, readonly import('./skill-folders.js').DirectoryChild[]>();

  add(skill: LoadedSkill): void {
    this.skills.push(skill);
    this.bySkillMd.set(skill.uri, skill);
    for (const [uri, file] of skill.files) this.files.set(uri, file);
    for (const [uri, children] of skill.directories) this.directories.set(uri, children);
  }
}

function uriParam(params: Record<string, unknown>): string {
  if (typeof params.uri !== 'string') throw new McpError(INVALID_PARAMS, skillErrors.uriMissing());
  return params.uri;
}

/** One page of `items` from `cursor` (an offset this server gave, as a string). */
function page<T>(items: readonly T[], cursor: unknown): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const offset = typeof cursor === 'string' && /^[0-9]{1,9}$/.test(cursor) ? Number(cursor) : Number.NaN;
    if (!(offset > 0 && offset < items.length)) throw new McpError(INVALID_PARAMS, skillErrors.badCursor(String(cursor)));
    start = offset;
  }
  const end = start + PAGE_SIZE;
  return { items: items.slice(start, end), ...(end < items.length ? { nextCursor: String(end) } : {}) };
}

/** The folders the app's classes declare with `@Skills`, as paths; a bad one is reported. */
function decoratedFolders(classes: readonly Constructor[], host: ExtensionHost): string[] {
  const folders: string[] = [];
  for (const serverClass of classes) {
    for (const folder of getMetadataStorage().skillsOf(serverClass)) {
      if (typeof folder === 'string' && folder !== '') folders.push(folder);
      else if (folder instanceof URL && folder.protocol === 'file:') folders.push(fileURLToPath(folder));
      else {
        const { message, fix } = skillProblems.decoratedInvalid(serverClass.name, String(folder));
        host.problem(message, fix);
      }
    }
  }
  return folders;
}

function checkedOptions(options: SkillsOptions, host: ExtensionHost): SkillsOptions | undefined {
  const { dirs, cache, limits } = (options ?? {}) as Partial<SkillsOptions>;
  const bad = (found: string) => {
    const { message, fix } = skillProblems.optionsInvalid(found);
    host.problem(message, fix);
    return undefined;
  };
  if (dirs !== undefined && (!Array.isArray(dirs) || !dirs.every((dir) => typeof dir === 'string' && dir !== '')))
    return bad(`dirs ${JSON.stringify(dirs) ?? String(dirs)}; it must be a list of folders`);
  if (cache?.ttlMs !== undefined && !(Number.isSafeInteger(cache.ttlMs) && cache.ttlMs >= 0))
    return bad(`cache.ttlMs ${String(cache.ttlMs)}; it must be a whole number of milliseconds, 0 or more`);
  if (cache?.scope !== undefined && cache.scope !== 'public' && cache.scope !== 'private')
    return bad(`cache.scope ${JSON.stringify(cache.scope)}; it must be 'public' or 'private'`);
  for (const key of ['files', 'bytes'] as const) {
    const value = limits?.[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0))
      return bad(`limits.${key} ${String(value)}; it must be a whole number, 1 or more`);
  }
  return options;
}

/**
 * The skills extension (SEP-2640): serves the skills in `dirs` as `skills/list`, `skills/get`,
 * `skill://<name>/...` resources (each file with its SHA-256 digest and size in the skill's entry)
 * and `resources/directory/read`. Every folder is read and checked at start-up: a link, a special
 * file, a file over the limits or a SKILL.md without name and description is a start-up problem.
 *
 * @example
 * ```ts
 * createMcpApp(Server, { extensions: [skills({ dirs: ['./skills'] })] });
 * ```
 */
export function skills(options: SkillsOptions = {}): Extension {
  const catalog = new SkillCatalog();
  const ttlMs = options?.cache?.ttlMs ?? 0;
  const cacheScope = options?.cache?.scope ?? 'private';
  // SEP-2549's list-caching attributes: required from 2026-07-28, and harmless before (the SDK's
  // skills client reads them on both revisions).
  const cached = <T extends object>(result: T) => ({ ...result, ttlMs, cacheScope });
  return defineExtension({
    id: SKILLS_EXTENSION,
    settings: { directoryRead: true },
    methods: {
      'skills/list': {
        handle: (params) => {
          const { items, nextCursor } = page(catalog.skills, params.cursor);
          return cached({ skills: items.map((skill) => skill.entry), ...(nextCursor ? { nextCursor } : {}) });
        },
      },
      'skills/get': {
        handle: (params) => {
          const uri = uriParam(params);
          const skill = catalog.bySkillMd.get(uri);
          if (!skill) throw new McpError(INVALID_PARAMS, skillErrors.unknownSkill(uri), { uri });
          return cached({ skill: skill.entry });
        },
      },
      'resources/directory/read': {
        handle: (params) => {
          const uri = uriParam(params);
          const children = catalog.directories.get(uri);
          if (!children) throw new McpError(INVALID_PARAMS, skillErrors.notDirectory(uri), { uri });
          const { items, nextCursor } = page(children, params.cursor);
          return cached({ resources: items, ...(nextCursor ? { nextCursor } : {}) });
        },
      },
    },
    setup: (host) => {
      const checked = checkedOptions(options, host);
      if (!checked) return;
      const limits = { ...DEFAULT_SKILL_LIMITS, ...checked.limits };
      const report = ({ message, fix }: { message: string; fix: string }) => host.problem(message, fix);
      const dirs = [...(checked.dirs ?? []), ...decoratedFolders(host.catalog.serverClasses, host)];
      if (dirs.length === 0) report(skillProblems.optionsInvalid('no folder (dirs is empty and no server class has @Skills)'));
      const seen = new Map<string, string>();
      for (const dir of dirs) {
        for (const folder of skillFoldersIn(dir, report)) {
          const skill = loadSkill(folder, limits, report);
          if (!skill) continue;
          const first = seen.get(skill.name);
          if (first) {
            report(skillProblems.nameTaken(skill.name, first, folder));
            continue;
          }
          seen.set(skill.name, folder);
          catalog.add(skill);
          // SKILL.md is listed, named and described after its frontmatter.
          const skillMd = skill.files.get(skill.uri);
          host.resource({
            uri: skill.uri,
            name: skill.name,
            description: skill.description,
            mimeType: 'text/markdown',
            size: skillMd?.size,
            read: () => skillMd?.text ?? '',
          });
        }
      }
      catalog.skills.sort((a, b) => (a.uri < b.uri ? -1 : 1));
      // The other files: looked up by their exact URI, anything else is not found.
      host.resourceTemplate({
        uriTemplate: 'skill://{+path}',
        name: 'skill-files',
        description: 'The files of the skills this server serves (skills/list lists them with their digests)',
        read: (uri) => {
          const file = catalog.files.get(uri);
          if (!file) throw new McpError(INVALID_PARAMS, skillErrors.resourceNotFound(), { uri });
          return file.text === undefined
            ? { contents: [{ uri, mimeType: file.mimeType, blob: Buffer.from(file.bytes).toString('base64') }] }
            : { contents: [{ uri, mimeType: file.mimeType, text: file.text }] };
        },
      });
    },
  });
}

/**
 * The extensions an app serves: `given`, plus the skills extension when a server class declares
 * `@Skills` and `given` has none (one given serves the decorated folders too).
 */
export function withDecoratedSkills(
  classes: readonly Constructor[],
  given: readonly Extension[] | undefined,
): readonly Extension[] | undefined {
  if (!classes.some((serverClass) => getMetadataStorage().skillsOf(serverClass).length > 0)) return given;
  if (given !== undefined && !Array.isArray(given)) return given;
  if (given?.some((extension) => extension?.id === SKILLS_EXTENSION)) return given;
  return [...(given ?? []), skills()];
}
