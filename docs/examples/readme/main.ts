import { Context, createMcpApp, Field, McpServer, Tool } from '@armature/core';
import { IsInt, IsString, Max, MinLength } from 'class-validator';

class SearchIssues {
  @Field('Repository as owner/name') @IsString() repo!: string;
  @Field('Words to look for') @IsString() @MinLength(3) query!: string;
  @Field('How many results') @IsInt() @Max(50) limit = 10;
}

@McpServer({ name: 'issues', version: '1.0.0' })
class IssueServer {
  @Tool({ description: 'Search open issues of a repository', annotations: { readOnlyHint: true } })
  async search_issues(input: SearchIssues, ctx: Context) {
    await ctx.log.info(`searching ${input.repo}`);
    return { repo: input.repo, query: input.query, limit: input.limit };
  }
}

const { url } = await createMcpApp(IssueServer).listenHttp({ port: Number(process.env.PORT ?? 3000) });
console.error(`MCP endpoint: ${url}`);
