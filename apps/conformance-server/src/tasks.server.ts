import { Context, Field, McpError, McpServer, Tool, ToolError } from '@armature/core';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

// The fixture tools of the suite's tasks extension scenarios (SEP-2663, io.modelcontextprotocol/tasks;
// src/scenarios/server/tasks/*.ts of @modelcontextprotocol/conformance 0.2), each doing what its
// scenario's "Required server fixtures" says.

export class GreetInput {
  @Field('Who to greet')
  @IsString()
  name!: string;
}

export class SlowComputeInput {
  @Field('How long the work takes, in seconds (0: at once)')
  @IsInt()
  @Min(0)
  @Max(60)
  seconds!: number;

  @Field('A label echoed in the result')
  @IsOptional()
  @IsString()
  label?: string;
}

export class DeleteInput {
  @Field('The file to delete once the user confirms')
  @IsString()
  filename!: string;
}

/** The form `confirm_delete` and `multi_input` ask for. */
export class Confirmation {
  @Field('Whether to go ahead')
  @IsOptional()
  confirm?: boolean;

  @Field('A name, for the multi_input answers')
  @IsOptional()
  @IsString()
  name?: string;
}

/** Waits `ms`, or until `signal` aborts (then throws its reason). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

@McpServer({ name: 'armature-conformance-tasks', version: '1.0.0' })
export class ConformanceTasks {
  @Tool({ description: 'Greets someone (an ordinary call, never a task)' })
  greet(input: GreetInput) {
    return `Hello, ${input.name}!`;
  }

  @Tool({ description: 'Computes for `seconds` seconds, as a task; stops when the task is cancelled', task: 'optional' })
  async slow_compute(input: SlowComputeInput, ctx: Context) {
    await ctx.progress(0, 1, `computing ${input.label ?? ''}`.trim());
    await sleep(input.seconds * 1000, ctx.signal);
    return `Computed ${input.label ?? 'the result'} in ${input.seconds} s`;
  }

  @Tool({ description: 'A job that fails with a tool error after a second', task: 'required' })
  async failing_job(ctx: Context) {
    await sleep(1000, ctx.signal);
    throw new ToolError('The job failed: the input could not be processed');
  }

  @Tool({ description: 'A job that fails with a JSON-RPC error (a protocol error)', task: 'optional' })
  async protocol_error_job(ctx: Context) {
    await sleep(100, ctx.signal);
    throw new McpError(-32603, 'The job hit an internal error');
  }

  @Tool({ description: 'Deletes a file once the user confirms (asks while it runs as a task)', task: 'optional' })
  async confirm_delete(input: DeleteInput, ctx: Context) {
    const answer = await ctx.elicit(`Delete ${input.filename}?`, Confirmation);
    if (answer.action !== 'accept' || answer.content.confirm !== true) return `Kept ${input.filename}`;
    return `Deleted ${input.filename}`;
  }

  @Tool({
    description: 'Asks for a name in the tools/call rounds, then goes on as a task that greets the name given',
    task: { support: 'required', start: 'continueAsTask' },
  })
  async test_tool_with_task(ctx: Context) {
    const answer = await ctx.elicit('What is your name (user_name)?', Confirmation);
    const name = answer.action === 'accept' ? (answer.content.name ?? 'someone') : 'someone';
    await ctx.continueAsTask();
    await sleep(100, ctx.signal);
    return `Hello, ${name}! (finished as a task)`;
  }

  @Tool({ description: 'Asks two questions at once while it runs as a task', task: 'optional' })
  async multi_input(ctx: Context) {
    const [first, second] = await Promise.all([ctx.elicit('First answer?', Confirmation), ctx.elicit('Second answer?', Confirmation)]);
    const name = (answer: typeof first) => (answer.action === 'accept' ? (answer.content.name ?? 'unnamed') : answer.action);
    return `Answers: ${name(first)}, ${name(second)}`;
  }
}
