import { fileURLToPath } from 'node:url';
import { createMcpApp, McpServer, SKILLS_EXTENSION, Skills, skills, Tool } from '@armature/core';
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';
import { connectInMemory, expectEqual } from './support/check.js';

@McpServer({ name: 'docs-skills', version: '1.0.0' })
export class ReleaseServer {
  @Tool({ description: 'The version being released' })
  version() {
    return '2.4.0';
  }
}

// #region serve
// ./skills holds one folder per skill, each with its SKILL.md (and any other files).
const app = createMcpApp(ReleaseServer, {
  extensions: [skills({ dirs: [fileURLToPath(new URL('./skills', import.meta.url))], cache: { ttlMs: 60_000, scope: 'public' } })],
});
// #endregion

// #region decorator
@Skills(new URL('./skills', import.meta.url)) // or a path, resolved from the working directory
@McpServer({ name: 'docs-skills-decorated', version: '1.0.0' })
export class ReleaseSkillsServer {
  @Tool({ description: 'The version being released' })
  version() {
    return '2.4.0';
  }
}
// createMcpApp(ReleaseSkillsServer) serves its skills: no extension to list in the options.
// #endregion

/** What the guide shows, checked by main(). */
export const outputs: Record<string, string> = {
  list: JSON.stringify(
    [
      {
        uri: 'skill://release-notes/SKILL.md',
        frontmatter: {
          name: 'release-notes',
          description: 'Write release notes from a list of merged changes, in the house style',
        },
        resources: [
          {
            uri: 'skill://release-notes/SKILL.md',
            digest: 'sha256:4385166e8af8b70b86c83a18c37895425a96125f8f859a4a7accd3931b44aabd',
            size: 202,
          },
          {
            uri: 'skill://release-notes/templates/NOTES.md',
            digest: 'sha256:7657710897a6164e9c4716c56c17545f5e1caf133409c3b5be424406e3414a27',
            size: 32,
          },
        ],
      },
    ],
    null,
    2,
  ),
  directory: JSON.stringify(
    {
      resources: [
        {
          uri: 'skill://release-notes/SKILL.md',
          name: 'SKILL.md',
          mimeType: 'text/markdown',
          size: 202,
        },
        {
          uri: 'skill://release-notes/templates',
          name: 'templates',
          mimeType: 'inode/directory',
        },
      ],
      ttlMs: 60000,
      cacheScope: 'public',
    },
    null,
    2,
  ),
};

export async function main(): Promise<void> {
  const { client, close } = await connectInMemory(app);
  try {
    expectEqual(client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION], { directoryRead: true }, 'capability');
    // #region client
    // Any object as the answer's schema: client.request() checks each answer against the schema it is given.
    const anyResult: StandardSchemaV1<Record<string, unknown>> = {
      '~standard': { version: 1, vendor: 'docs', validate: (value) => ({ value: value as Record<string, unknown> }) },
    };
    const { skills: listed } = await client.request({ method: 'skills/list', params: {} }, anyResult);
    const [entry] = listed as { uri: string; resources: { uri: string; digest: string; size: number }[] }[];
    const skillMd = await client.readResource({ uri: entry?.uri ?? '' });
    const folder = await client.request({ method: 'resources/directory/read', params: { uri: 'skill://release-notes' } }, anyResult);
    // #endregion
    expectEqual(JSON.stringify(listed, null, 2), outputs.list, 'skills/list');
    expectEqual(JSON.stringify(folder, null, 2), outputs.directory, 'resources/directory/read');
    expectEqual(entry?.uri, 'skill://release-notes/SKILL.md', 'the SKILL.md URI');
    expectEqual(entry?.resources.length, 2, 'SKILL.md and templates/NOTES.md');
    expectEqual((skillMd.contents[0] as { mimeType?: string }).mimeType, 'text/markdown', 'SKILL.md as markdown');
    const outside = await client.readResource({ uri: 'skill://release-notes/../../package.json' }).catch((e: { code: number }) => e);
    expectEqual((outside as { code: number }).code, -32602, 'a URI outside the skills is not found');
    const decorated = await connectInMemory(createMcpApp(ReleaseSkillsServer));
    try {
      const { skills: again } = await decorated.client.request({ method: 'skills/list', params: {} }, anyResult);
      expectEqual(JSON.stringify(again, null, 2), outputs.list, 'the same skills, declared with @Skills');
    } finally {
      await decorated.close();
    }
  } finally {
    await close();
  }
}
