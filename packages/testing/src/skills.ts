import { createHash } from 'node:crypto';
import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';

/** One skill as `skills/list` gives it (SEP-2640). */
export interface SkillEntry {
  readonly uri: string;
  readonly frontmatter: Readonly<Record<string, unknown>> & { readonly name: string; readonly description: string };
  readonly resources: readonly { readonly uri: string; readonly digest: string; readonly size: number }[] | 'dynamic';
}

const anyResult: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'armature-testing', validate: (value) => ({ value: value as Record<string, unknown> }) },
};

/** Every skill the server lists (`skills/list`, all pages), e.g. `expect((await listSkills(t.client)).map((s) => s.uri))`. */
export async function listSkills(client: Pick<Client, 'request'>): Promise<SkillEntry[]> {
  const skills: SkillEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await client.request({ method: 'skills/list', params: cursor ? { cursor } : {} }, anyResult);
    skills.push(...((result.skills as SkillEntry[] | undefined) ?? []));
    cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
    if (!cursor) return skills;
  }
  throw new Error('skills/list returned a next cursor 1000 times');
}

/**
 * Reads every file of a skill's entry as a host does before loading it, and returns what does not
 * match: a file that cannot be read, or whose bytes differ from the entry's size or SHA-256 digest.
 * An empty list means a host would load the skill.
 */
export async function verifySkill(client: Pick<Client, 'readResource'>, entry: SkillEntry): Promise<string[]> {
  if (entry.resources === 'dynamic') return [];
  const problems: string[] = [];
  for (const file of entry.resources) {
    let bytes: Buffer;
    try {
      const [contents] = (await client.readResource({ uri: file.uri })).contents as ({ text?: string; blob?: string } | undefined)[];
      bytes = contents?.blob !== undefined ? Buffer.from(contents.blob, 'base64') : Buffer.from(contents?.text ?? '', 'utf8');
    } catch (error) {
      problems.push(`${file.uri}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (bytes.byteLength !== file.size) problems.push(`${file.uri}: ${bytes.byteLength} bytes, the entry says ${file.size}`);
    else if (digest !== file.digest) problems.push(`${file.uri}: digest ${digest}, the entry says ${file.digest}`);
  }
  return problems;
}
