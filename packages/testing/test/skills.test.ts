import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer, Skills, Tool } from '@armature/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestingApp, listSkills, verifySkill } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'armature-testing-skills-'));
mkdirSync(join(root, 'greeting', 'examples'), { recursive: true });
writeFileSync(join(root, 'greeting', 'SKILL.md'), '---\nname: greeting\ndescription: Greet people warmly\n---\n\nSay hello.\n');
writeFileSync(join(root, 'greeting', 'examples', 'hello.txt'), 'Hello!\n');
afterAll(() => rmSync(root, { recursive: true, force: true }));

@Skills(root)
@McpServer({ name: 'greeter', version: '1.0.0' })
class GreeterServer {
  @Tool({ description: 'd' })
  ping() {
    return 'pong';
  }
}

describe('skills helpers', () => {
  it('lists the skills and verifies each file against its digest and size, as a host does', async () => {
    const t = await createTestingApp({ servers: [GreeterServer] }).compile();
    try {
      const skills = await listSkills(t.client);
      expect(skills.map((skill) => [skill.uri, skill.frontmatter.name])).toEqual([['skill://greeting/SKILL.md', 'greeting']]);
      expect(await verifySkill(t.client, skills[0] as (typeof skills)[0])).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('says which file does not match its entry', async () => {
    const entry = {
      uri: 'skill://x/SKILL.md',
      frontmatter: { name: 'x', description: 'd' },
      resources: [
        { uri: 'skill://x/SKILL.md', digest: 'sha256:00', size: 2 },
        { uri: 'skill://x/a.txt', digest: 'sha256:00', size: 5 },
      ],
    };
    const tampered = {
      readResource: async ({ uri }: { uri: string }) => ({ contents: [{ uri, text: uri.endsWith('SKILL.md') ? 'ab' : 'abc' }] }),
    };
    expect(await verifySkill(tampered as never, entry)).toEqual([
      'skill://x/SKILL.md: digest sha256:fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603, the entry says sha256:00',
      'skill://x/a.txt: 3 bytes, the entry says 5',
    ]);
  });
});
