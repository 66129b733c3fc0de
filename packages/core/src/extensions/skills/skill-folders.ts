import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { skillProblems } from '../../messages/skill-messages.js';

// Reading skill folders from disk once, at start-up (SEP-2640; the Agent Skills format): every file
// is read, hashed and kept, so a read serves the bytes the published digest covers, and a client's
// URI is only ever looked up, never turned into a path.

/** A problem found in a folder, as the extension host reports it. */
export type Report = (problem: { readonly message: string; readonly fix: string }) => void;

export interface SkillLimits {
  /** Files per skill, SKILL.md included. Default 512 (SEP-2640). */
  readonly files: number;
  /** Bytes per skill, all files together. Default 16 MiB (SEP-2640). */
  readonly bytes: number;
}

export const DEFAULT_SKILL_LIMITS: SkillLimits = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** Folders deeper than this inside a skill are refused (a link loop cannot happen: links are refused). */
const MAX_DEPTH = 16;
const NAME_PATTERN = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
export const DIRECTORY_MIME_TYPE = 'inode/directory';

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  py: 'text/x-python',
  js: 'text/javascript',
  ts: 'text/x-typescript',
  sh: 'text/x-shellscript',
  html: 'text/html',
  csv: 'text/csv',
  xml: 'application/xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/** One file of a skill, read at start-up. */
export interface SkillFile {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  readonly size: number;
  readonly digest: string;
  /** The content, when it is UTF-8 text; else `bytes` are sent as a blob. */
  readonly text?: string;
  readonly bytes: Uint8Array;
}

/** A child of a skill folder, as `resources/directory/read` lists it. */
export interface DirectoryChild {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  readonly size?: number;
}

/** A skill, loaded: its entry (what skills/list and skills/get send), its files and folders by URI. */
export interface LoadedSkill {
  readonly name: string;
  readonly description: string;
  /** The URI of its SKILL.md. */
  readonly uri: string;
  readonly folder: string;
  readonly entry: Readonly<Record<string, unknown>>;
  readonly files: ReadonlyMap<string, SkillFile>;
  readonly directories: ReadonlyMap<string, readonly DirectoryChild[]>;
}

const requireHere = createRequire(import.meta.url);
let yaml: { parse(text: string, options: Record<string, unknown>): unknown } | undefined;

/** YAML is parsed by the `yaml` package, loaded by the first app that serves skills. */
function parseYaml(text: string): unknown {
  yaml ??= requireHere('yaml') as typeof yaml & object;
  return yaml.parse(text, { schema: 'core', uniqueKeys: true, maxAliasCount: 50, prettyErrors: false });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The skill folders `dir` names: itself when it holds a SKILL.md, else its folders that do. */
export function skillFoldersIn(dir: string, report: Report): string[] {
  const root = resolve(dir);
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (error) {
    report(skillProblems.folderMissing(dir, (error as NodeJS.ErrnoException).code ?? String(error)));
    return [];
  }
  if (entries.some((entry) => entry.name === 'SKILL.md')) return [root];
  const folders: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(root, entry.name);
    if (entry.isSymbolicLink()) {
      report(skillProblems.symlink(path));
      continue;
    }
    if (!entry.isDirectory()) continue;
    try {
      if (readdirSync(path).includes('SKILL.md')) folders.push(path);
    } catch (error) {
      report(skillProblems.folderMissing(path, (error as NodeJS.ErrnoException).code ?? String(error)));
    }
  }
  if (folders.length === 0) report(skillProblems.noSkill(dir));
  return folders.sort();
}

/** Reads a regular file without following a link in its last step (a link swapped in after the walk). */
function readRegularFile(path: string, maxBytes: number): Uint8Array | 'special' | 'tooLarge' {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'special';
    if (stat.size > maxBytes) return 'tooLarge';
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, bytes, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment);
}

function mimeTypeOf(name: string, text: string | undefined): string {
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  return MIME_TYPES[extension] ?? (text === undefined ? 'application/octet-stream' : 'text/plain');
}

interface Walked {
  readonly relative: string[];
  readonly bytes: Uint8Array;
}

/** Splits `SKILL.md` into its frontmatter YAML (the Agent Skills format: `---` lines around it). */
function frontmatterOf(markdown: string): { yaml: string } | { error: string } {
  let text = markdown.replaceAll('\r\n', '\n');
  if (text.codePointAt(0) === 0xfeff) text = text.slice(1);
  if (!text.startsWith('---\n')) return { error: 'it does not begin with a --- line' };
  const rest = text.slice(4);
  const close = /^---[\t ]*$/m.exec(rest);
  if (!close) return { error: 'the frontmatter has no closing --- line' };
  return { yaml: rest.slice(0, close.index) };
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** The frontmatter as JSON, checked; undefined after reporting. */
function readFrontmatter(path: string, markdown: string, folderName: string, report: Report): Record<string, unknown> | undefined {
  const split = frontmatterOf(markdown);
  if ('error' in split) {
    report(skillProblems.frontmatterMissing(path, split.error));
    return undefined;
  }
  let parsed: unknown;
  try {
    // Plain JSON, as the entry carries it (dates and the like were never in the core schema).
    parsed = JSON.parse(JSON.stringify(parseYaml(split.yaml) ?? null));
  } catch (error) {
    report(skillProblems.frontmatterMissing(path, (error as Error).message.split('\n')[0] ?? String(error)));
    return undefined;
  }
  if (!isPlainRecord(parsed) || Object.hasOwn(parsed, '__proto__')) {
    report(skillProblems.frontmatterMissing(path, 'the frontmatter is not a mapping of keys to values'));
    return undefined;
  }
  const { name, description } = parsed;
  let sound = true;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    report(skillProblems.nameInvalid(path, JSON.stringify(name) ?? String(name)));
    sound = false;
  } else if (name !== folderName) {
    report(skillProblems.nameNotFolder(path, name, folderName));
    sound = false;
  }
  if (typeof description !== 'string' || description.length === 0 || description.length > 1024) {
    report(skillProblems.descriptionInvalid(path));
    sound = false;
  }
  return sound ? parsed : undefined;
}

/**
 * Loads the skill in `folder`: walks it (links, special files, names that are not UTF-8, depth
 * and limits refused), reads and hashes every file, and checks SKILL.md. Undefined after reporting.
 */
export function loadSkill(folder: string, limits: SkillLimits, report: Report): LoadedSkill | undefined {
  const folderName = basename(folder);
  const walked: Walked[] = [];
  let total = 0;
  let sound = true;
  const walk = (dir: string, relative: string[]) => {
    if (relative.length > MAX_DEPTH) {
      report(skillProblems.tooDeep(dir, MAX_DEPTH));
      sound = false;
      return;
    }
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!sound) return;
      // Hidden entries (.git, .DS_Store) are not part of a skill.
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.name.includes('\uFFFD')) {
        report(skillProblems.nameNotUtf8(path));
        sound = false;
      } else if (entry.isSymbolicLink()) {
        report(skillProblems.symlink(path));
        sound = false;
      } else if (entry.isDirectory()) walk(path, [...relative, entry.name]);
      else if (!entry.isFile()) {
        report(skillProblems.special(path));
        sound = false;
      } else if (walked.length >= limits.files) {
        report(skillProblems.tooManyFiles(folderName, limits.files));
        sound = false;
      } else {
        const bytes = readRegularFile(path, limits.bytes - total);
        if (bytes === 'special') {
          report(skillProblems.special(path));
          sound = false;
        } else if (bytes === 'tooLarge') {
          report(skillProblems.tooLarge(folderName, limits.bytes));
          sound = false;
        } else {
          total += bytes.byteLength;
          walked.push({ relative: [...relative, entry.name], bytes });
        }
      }
    }
  };
  try {
    if (lstatSync(folder).isSymbolicLink()) {
      report(skillProblems.symlink(folder));
      return undefined;
    }
    walk(folder, []);
  } catch (error) {
    report(skillProblems.folderMissing(folder, (error as NodeJS.ErrnoException).code ?? String(error)));
    return undefined;
  }
  if (!sound) return undefined;
  const skillMd = walked.find((file) => file.relative.length === 1 && file.relative[0] === 'SKILL.md');
  const skillMdPath = join(folder, 'SKILL.md');
  if (!skillMd) {
    report(skillProblems.noSkill(folder));
    return undefined;
  }
  const markdown = decodeUtf8(skillMd.bytes);
  if (markdown === undefined) {
    report(skillProblems.skillMdNotUtf8(skillMdPath));
    return undefined;
  }
  const frontmatter = readFrontmatter(skillMdPath, markdown, folderName, report);
  if (!frontmatter) return undefined;
  const name = frontmatter.name as string;
  const root = `skill://${name}`;
  const files = new Map<string, SkillFile>();
  const directories = new Map<string, DirectoryChild[]>([[root, []]]);
  const childrenOf = (segments: readonly string[]) => {
    let uri = root;
    for (const segment of segments) {
      const parent = directories.get(uri) as DirectoryChild[];
      uri = `${uri}/${encodeSegment(segment)}`;
      if (!directories.has(uri)) {
        directories.set(uri, []);
        parent.push({ uri, name: segment, mimeType: DIRECTORY_MIME_TYPE });
      }
    }
    return directories.get(uri) as DirectoryChild[];
  };
  for (const { relative, bytes } of walked) {
    const uri = `${root}/${relative.map(encodeSegment).join('/')}`;
    const fileName = relative[relative.length - 1] as string;
    const text = decodeUtf8(bytes);
    const file: SkillFile = Object.freeze({
      uri,
      name: fileName,
      mimeType: relative.length === 1 && fileName === 'SKILL.md' ? 'text/markdown' : mimeTypeOf(fileName, text),
      size: bytes.byteLength,
      digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      ...(text === undefined ? {} : { text }),
      bytes,
    });
    files.set(uri, file);
    childrenOf(relative.slice(0, -1)).push({ uri, name: fileName, mimeType: file.mimeType, size: file.size });
  }
  const uri = `${root}/SKILL.md`;
  const resources = [...files.values()].map((file) => ({ uri: file.uri, digest: file.digest, size: file.size }));
  return Object.freeze({
    name,
    description: frontmatter.description as string,
    uri,
    folder,
    entry: Object.freeze({ uri, frontmatter, resources }),
    files,
    directories,
  });
}
