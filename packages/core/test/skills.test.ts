import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ProtocolError, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { ArmatureBuildError, createMcpApp, McpServer, SKILLS_EXTENSION, Skills, skills, Tool } from '../src/index.js';
import { connectHttp, connectInMemory } from './support/clients.js';

@McpServer({ name: 'skills-test', version: '1.0.0' })
class SkillsTestServer {
  @Tool({ description: 'd' })
  ping() {
    return 'pong';
  }
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A folder of skill folders, written from `files` (paths relative to it). */
function folder(files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), 'armature-skills-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const PDF_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  author: acme\n---\n\n# PDF\n\nSee references/FORMS.md.\n';
const FORMS = '# Forms\n';
const digest = (content: string | Uint8Array) => `sha256:${createHash('sha256').update(content).digest('hex')}`;
const anyResult: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value: value as Record<string, unknown> }) },
};

function problemsOf(dirs: string[], limits?: { files?: number; bytes?: number }) {
  try {
    createMcpApp(SkillsTestServer, { extensions: [skills({ dirs, limits })] });
  } catch (error) {
    if (error instanceof ArmatureBuildError) return error.problems.map((p) => `${p.code} ${p.message}`);
    throw error;
  }
  return [];
}

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProtocolError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a JSON-RPC error');
}

describe('skills (SEP-2640)', () => {
  const binary = Uint8Array.from([0xff, 0xfe, 0x00, 0x80]);
  const root = folder({
    'pdf-processing/SKILL.md': PDF_MD,
    'pdf-processing/references/FORMS.md': FORMS,
    'pdf-processing/assets/logo.bin': binary,
    'pdf-processing/.git/config': 'hidden',
    'secret.txt': 'outside any skill',
  });
  const app = createMcpApp(SkillsTestServer, { extensions: [skills({ dirs: [root] })] });

  it('lists each skill with its frontmatter and every file with digest and size, and gets one', async () => {
    const { client, close } = await connectInMemory(app);
    try {
      expect(client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION]).toEqual({ directoryRead: true });
      expect(client.getServerCapabilities()?.resources).toBeDefined();
      const entry = {
        uri: 'skill://pdf-processing/SKILL.md',
        frontmatter: { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', metadata: { author: 'acme' } },
        resources: [
          { uri: 'skill://pdf-processing/SKILL.md', digest: digest(PDF_MD), size: Buffer.byteLength(PDF_MD) },
          { uri: 'skill://pdf-processing/assets/logo.bin', digest: digest(binary), size: 4 },
          { uri: 'skill://pdf-processing/references/FORMS.md', digest: digest(FORMS), size: Buffer.byteLength(FORMS) },
        ].sort((a, b) => (a.uri < b.uri ? -1 : 1)),
      };
      const listed = await client.request({ method: 'skills/list', params: {} }, anyResult);
      expect(listed).toEqual({ skills: [entry], ttlMs: 0, cacheScope: 'private' });
      expect(await client.request({ method: 'skills/get', params: { uri: entry.uri } }, anyResult)).toEqual({
        skill: entry,
        ttlMs: 0,
        cacheScope: 'private',
      });
      const unknown = await refusal(client.request({ method: 'skills/get', params: { uri: 'skill://nope/SKILL.md' } }, anyResult));
      expect(unknown.code).toBe(-32602);
      // SKILL.md is a listed resource named and described after its frontmatter.
      expect((await client.listResources()).resources).toEqual([
        {
          uri: entry.uri,
          name: 'pdf-processing',
          description: 'Extract, fill, and assemble PDF documents',
          mimeType: 'text/markdown',
          size: Buffer.byteLength(PDF_MD),
        },
      ]);
    } finally {
      await close();
    }
  });

  it('serves each file as listed: text as text, other bytes as a blob matching the digest', async () => {
    const { client, close } = await connectInMemory(app);
    try {
      expect((await client.readResource({ uri: 'skill://pdf-processing/SKILL.md' })).contents).toEqual([
        { uri: 'skill://pdf-processing/SKILL.md', mimeType: 'text/markdown', text: PDF_MD },
      ]);
      expect((await client.readResource({ uri: 'skill://pdf-processing/references/FORMS.md' })).contents).toEqual([
        { uri: 'skill://pdf-processing/references/FORMS.md', mimeType: 'text/markdown', text: FORMS },
      ]);
      const [blob] = (await client.readResource({ uri: 'skill://pdf-processing/assets/logo.bin' })).contents as { blob: string }[];
      expect(digest(Buffer.from(blob?.blob ?? '', 'base64'))).toBe(digest(binary));
    } finally {
      await close();
    }
  });

  it('reads directories: direct children, folders as inode/directory; a file or unknown URI is -32602', async () => {
    const { client, close } = await connectInMemory(app);
    try {
      const read = (uri: string, cursor?: string) =>
        client.request({ method: 'resources/directory/read', params: { uri, ...(cursor ? { cursor } : {}) } }, anyResult);
      expect(await read('skill://pdf-processing')).toEqual({
        resources: [
          { uri: 'skill://pdf-processing/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(PDF_MD) },
          { uri: 'skill://pdf-processing/assets', name: 'assets', mimeType: 'inode/directory' },
          { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
        ].sort((a, b) => (a.name < b.name ? -1 : 1)),
        ttlMs: 0,
        cacheScope: 'private',
      });
      expect((await refusal(read('skill://pdf-processing/SKILL.md'))).code).toBe(-32602);
      expect((await refusal(read('skill://pdf-processing', 'not-a-cursor'))).code).toBe(-32602);
    } finally {
      await close();
    }
  });

  it('never turns a URI into a path: traversal, encoded, absolute and hidden URIs are not found', async () => {
    const { client, close } = await connectInMemory(app);
    try {
      for (const uri of [
        'skill://pdf-processing/../secret.txt',
        'skill://pdf-processing/%2e%2e/secret.txt',
        'skill://pdf-processing/references/..%2F..%2Fsecret.txt',
        'skill:///etc/passwd',
        'skill://pdf-processing/.git/config',
        `skill://${root}/secret.txt`,
      ]) {
        const error = await refusal(client.readResource({ uri }));
        expect(error.code, uri).toBe(-32602);
        const directory = await refusal(client.request({ method: 'resources/directory/read', params: { uri } }, anyResult));
        expect(directory.code, uri).toBe(-32602);
      }
    } finally {
      await close();
    }
  });

  it('adds ttlMs and cacheScope on 2026-07-28 too, as configured', async () => {
    const cachedApp = createMcpApp(SkillsTestServer, { extensions: [skills({ dirs: [root], cache: { ttlMs: 60_000, scope: 'public' } })] });
    const { client, close } = await connectHttp(cachedApp, { modern: true });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const listed = await client.request({ method: 'skills/list', params: {} }, anyResult);
      expect([listed.ttlMs, listed.cacheScope, (listed.skills as unknown[]).length]).toEqual([60_000, 'public', 1]);
    } finally {
      await close();
    }
  });
});

describe('skills: hostile folders are refused at start-up', () => {
  const fm = (name: string) => `---\nname: ${name}\ndescription: d\n---\n`;

  it('refuses a symbolic link in a skill (pointing out of it) and a linked skill folder', () => {
    const outside = folder({ 'secret.txt': 'secret' });
    const root = folder({ 'good/SKILL.md': fm('good') });
    symlinkSync(join(outside, 'secret.txt'), join(root, 'good', 'leak.txt'));
    const linked = folder({});
    symlinkSync(join(root, 'good'), join(linked, 'good'));
    expect(problemsOf([root])).toEqual([
      `ARM168 ${join(root, 'good', 'leak.txt')} is a symbolic link; a skill is served from its own folder only, so links (which may point out of it) are refused`,
    ]);
    expect(problemsOf([linked])[0]).toContain(`${join(linked, 'good')} is a symbolic link`);
  });

  it('refuses a file over the size limit without reading it, and too many files', () => {
    const root = folder({ 'big/SKILL.md': fm('big') });
    writeFileSync(join(root, 'big', 'huge.bin'), '');
    truncateSync(join(root, 'big', 'huge.bin'), 17 * 1024 * 1024);
    expect(problemsOf([root])).toEqual([
      "ARM168 the files of the skill big add up to more than 16777216 bytes (SEP-2640's limit is 16 MiB)",
    ]);
    const many = folder({ 'many/SKILL.md': fm('many'), 'many/a.txt': 'a', 'many/b.txt': 'b' });
    expect(problemsOf([many], { files: 2 })).toEqual(["ARM168 the skill many has more than 2 files, SKILL.md included (SEP-2640's limit)"]);
  });

  it('refuses a SKILL.md that is not UTF-8, a file name that is not, and serves other non-UTF-8 bytes as blobs', () => {
    const root = folder({ 'latin/SKILL.md': Buffer.concat([Buffer.from(fm('latin')), Buffer.from([0xe9, 0xff])]) });
    expect(problemsOf([root])).toEqual([`ARM168 ${join(root, 'latin', 'SKILL.md')} is not valid UTF-8 text`]);
    const named = folder({ 'named/SKILL.md': fm('named') });
    writeFileSync(Buffer.concat([Buffer.from(join(named, 'named', 'bad-')), Buffer.from([0xff, 0xfe])]), 'x');
    expect(problemsOf([named])[0]).toMatch(/^ARM168 the name of .* is not valid UTF-8, so it has no resource URI$/);
  });

  it('refuses frontmatter that is missing, unparseable (an alias bomb), misnamed or undescribed, and names used twice', () => {
    const bomb = `---\nname: bomb\ndescription: d\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n---\n`;
    const root = folder({
      'none/SKILL.md': '# no frontmatter',
      'bomb/SKILL.md': bomb,
      'wrong/SKILL.md': fm('other-name'),
      'Bad_Name/SKILL.md': fm('Bad_Name'),
      'nodesc/SKILL.md': '---\nname: nodesc\n---\n',
    });
    const problems = problemsOf([root]);
    expect(problems).toHaveLength(5);
    expect(problems).toEqual(
      expect.arrayContaining([
        `ARM168 ${join(root, 'none', 'SKILL.md')} has no readable YAML frontmatter: it does not begin with a --- line`,
        expect.stringMatching(/^ARM168 .*bomb.SKILL\.md has no readable YAML frontmatter: .*alias/i),
        `ARM168 the frontmatter name "other-name" of ${join(root, 'wrong', 'SKILL.md')} differs from its folder's name "wrong"; the Agent Skills specification asks them to be equal`,
        expect.stringContaining('the frontmatter name "Bad_Name"'),
        `ARM168 the frontmatter of ${join(root, 'nodesc', 'SKILL.md')} has no description of 1 to 1024 characters`,
      ]),
    );
    const a = folder({ 'twice/SKILL.md': fm('twice') });
    const b = folder({ 'twice/SKILL.md': fm('twice') });
    expect(problemsOf([a, b])).toEqual([`ARM168 two skills are named twice: ${join(a, 'twice')} and ${join(b, 'twice')}`]);
  });

  it('reports a folder that does not exist or holds no skill, and bad options', () => {
    expect(problemsOf(['/nonexistent/skills'])).toEqual(['ARM168 the skills folder /nonexistent/skills cannot be read (ENOENT)']);
    expect(problemsOf([folder({ 'x.txt': 'x' })])[0]).toMatch(/holds no SKILL\.md, and no folder in it does$/);
    expect(problemsOf([])).toEqual(['ARM168 skills() was given no folder (dirs is empty and no server class has @Skills)']);
  });
});

describe('skills declared with @Skills on a server class', () => {
  const fm = (name: string) => `---\nname: ${name}\ndescription: d\n---\n`;

  it('serves the folders of @Skills (path or file: URL) without the extension in the options, and with it', async () => {
    const byPath = folder({ 'one/SKILL.md': fm('one') });
    const byUrl = folder({ 'two/SKILL.md': fm('two') });
    const given = folder({ 'three/SKILL.md': fm('three') });
    @Skills(byPath, pathToFileURL(byUrl))
    @McpServer({ name: 'decorated', version: '1.0.0' })
    class Decorated {
      @Tool({ description: 'd' })
      ping() {
        return 'pong';
      }
    }
    const listed = async (app: ReturnType<typeof createMcpApp>) => {
      const { client, close } = await connectInMemory(app);
      try {
        const { skills: entries } = await client.request({ method: 'skills/list', params: {} }, anyResult);
        return (entries as { uri: string }[]).map((entry) => entry.uri);
      } finally {
        await close();
      }
    };
    expect(await listed(createMcpApp(Decorated))).toEqual(['skill://one/SKILL.md', 'skill://two/SKILL.md']);
    expect(await listed(createMcpApp(Decorated, { extensions: [skills({ dirs: [given] })] }))).toEqual([
      'skill://one/SKILL.md',
      'skill://three/SKILL.md',
      'skill://two/SKILL.md',
    ]);
  });

  it('reports a @Skills folder that is not a path, naming the class', () => {
    @Skills(42 as unknown as string)
    @McpServer({ name: 'bad', version: '1.0.0' })
    class BadSkills {
      @Tool({ description: 'd' })
      ping() {
        return 'pong';
      }
    }
    const error = (() => {
      try {
        createMcpApp(BadSkills);
      } catch (thrown) {
        return thrown as ArmatureBuildError;
      }
      throw new Error('expected an ArmatureBuildError');
    })();
    expect(error.problems.map((p) => `${p.code} ${p.where}: ${p.message}`)).toEqual([
      `ARM168 extension ${SKILLS_EXTENSION}: @Skills on BadSkills names 42, which is not a folder`,
      `ARM168 extension ${SKILLS_EXTENSION}: skills() was given no folder (dirs is empty and no server class has @Skills)`,
    ]);
  });
});
