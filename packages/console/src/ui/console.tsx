import {
  type CallToolResult,
  type Client,
  type CreateMessageResult,
  type ElicitResult,
  type GetPromptResult,
  LOG_LEVEL_META_KEY,
  type LoggingMessageNotificationParams,
  type ReadResourceResult,
  TRACEPARENT_META_KEY,
} from '@modelcontextprotocol/client';
import { getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { HandlerFacts, SpanRecord } from '../agent/span-record.js';
import type { ConsoleEvent } from '../server/console-server.js';
import { AppFrame } from './app-frame.js';
import { type Ask, Asks } from './asks.js';
import { Badges, expand, formSchema, type Item, itemsOf, matches } from './catalogue.js';
import { type Answers, type Catalogue, connect, EMPTY_CATALOGUE, loadCatalogue, REVISIONS, type Revision } from './connection.js';
import { type CallIssues, parseIssues } from './issues.js';
import { ReadView, ResultView } from './result-view.js';
import { initialValue } from './schema.js';
import { SchemaForm } from './schema-form.js';
import { StartupProblems } from './startup-problems.js';
import { cancelTask, followTask, type TaskState, type TimelineEntry, withStatus } from './tasks.js';
import { TraceView } from './trace-view.js';
import { newTraceParent } from './traces.js';

type ServerEvent = Extract<ConsoleEvent, { type: 'server' }>;
interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** One run of an item (a call, a read, a prompt): what it sent and what came back. */
interface Run {
  status: 'running' | 'done' | 'failed' | 'cancelled';
  args: Record<string, unknown>;
  traceId?: string;
  progress?: Progress;
  result?: CallToolResult;
  read?: ReadResourceResult;
  prompt?: GetPromptResult;
  error?: string;
  issues?: CallIssues;
  abort?: AbortController;
  /** When the call runs as a task: its id and every status it went through. */
  task?: { taskId: string; timeline: TimelineEntry[] };
}

interface LogLine {
  id: number;
  level: string;
  logger?: string;
  data: unknown;
  at: string;
}

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const TOKEN = new URLSearchParams(location.search).get('token') ?? '';
const FORMS_KEY = 'armature-console:forms';
const MAX_TRACES = 200;
const MAX_LOGS = 500;

function stored<T>(key: string, fallback: T, storage: Storage = sessionStorage): T {
  try {
    const text = storage.getItem(key);
    return text === null ? fallback : (JSON.parse(text) as T);
  } catch {
    return fallback;
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function Console() {
  const [server, setServer] = useState<ServerEvent>({ type: 'server', state: 'starting', generation: 0 });
  const [revision, setRevision] = useState<Revision>(() => stored<Revision>('armature-console:revision', '2025-11-25', localStorage));
  const [client, setClient] = useState<Client>();
  const [connection, setConnection] = useState<string>('waiting for the server');
  const [catalogue, setCatalogue] = useState<Catalogue>(EMPTY_CATALOGUE);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<string | undefined>(() => stored<string | undefined>('armature-console:selected', undefined));
  const [forms, setForms] = useState<Record<string, unknown>>(() => stored(FORMS_KEY, {}));
  const [runs, setRuns] = useState<Record<string, Run>>({});
  const [logs, setLogs] = useState<LogLine[]>([]);
  const [logLevel, setLogLevel] = useState('debug');
  const [asks, setAsks] = useState<Ask[]>([]);
  const [rootsText, setRootsText] = useState(() => stored('armature-console:roots', '', localStorage));
  const [spans, setSpans] = useState<Map<string, SpanRecord[]>>(new Map());
  const [asTask, setAsTask] = useState<Record<string, boolean>>({});
  const counter = useRef(0);
  const roots = useRef<string[]>([]);
  roots.current = rootsText
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

  // The console's event stream: the server's state (each restart a new generation) and its spans.
  useEffect(() => {
    const events = new EventSource(`/events?token=${encodeURIComponent(TOKEN)}`);
    events.onmessage = (e) => {
      const event = JSON.parse(e.data) as ConsoleEvent;
      if (event.type === 'server') setServer(event);
      else
        setSpans((previous) => {
          const next = new Map(previous);
          for (const span of event.spans) next.set(span.traceId, [...(next.get(span.traceId) ?? []), span]);
          while (next.size > MAX_TRACES) next.delete(next.keys().next().value as string);
          return next;
        });
    };
    return () => events.close();
  }, []);

  /**
   * Puts a question in the page until it is answered (the answer goes back to the server) or the
   * server withdraws it (`signal`: the call was cancelled), and then takes it away.
   */
  function ask<R>(signal: AbortSignal, make: (id: number, answer: (result: R) => void) => Ask, withdrawn: R): Promise<R> {
    return new Promise((resolve) => {
      const id = ++counter.current;
      const settle = (result: R) => {
        signal.removeEventListener('abort', onAbort);
        setAsks((list) => list.filter((a) => a.id !== id));
        resolve(result);
      };
      const onAbort = () => settle(withdrawn);
      signal.addEventListener('abort', onAbort);
      setAsks((list) => [...list, make(id, settle)]);
    });
  }
  const answers = useMemo<Answers>(
    () => ({
      elicit: (params, signal) => ask<ElicitResult>(signal, (id, answer) => ({ id, kind: 'elicit', params, answer }), { action: 'cancel' }),
      sample: (params, signal) =>
        ask<CreateMessageResult>(signal, (id, answer) => ({ id, kind: 'sample', params, answer }), {
          role: 'assistant',
          content: { type: 'text', text: '' },
          model: 'armature-console',
        }),
      roots: () => roots.current.map((uri) => ({ uri, name: uri.replace(/^file:\/\//, '') })),
      taskStatus: (state: TaskState) =>
        setRuns((all) => {
          const key = Object.keys(all).find((k) => all[k]?.task?.taskId === state.taskId);
          const run = key === undefined ? undefined : all[key];
          if (key === undefined || !run?.task) return all;
          return { ...all, [key]: { ...run, task: { ...run.task, timeline: withStatus(run.task.timeline, state) } } };
        }),
      log: (params: LoggingMessageNotificationParams) =>
        setLogs((list) => [
          ...list.slice(-(MAX_LOGS - 1)),
          { id: ++counter.current, level: params.level, logger: params.logger, data: params.data, at: new Date().toLocaleTimeString() },
        ]),
    }),
    [],
  );

  // (Re)connect when the server is up in a new generation (a restart) or another revision is picked.
  const generation = server.state === 'up' ? server.generation : undefined;
  useEffect(() => {
    if (generation === undefined) {
      setConnection(
        server.state === 'failed'
          ? 'the server failed to start'
          : server.state === 'down'
            ? 'the server is down'
            : 'the server is starting',
      );
      return;
    }
    let current: Client | undefined;
    let gone = false;
    setConnection(`connecting (${revision})`);
    connect(revision, TOKEN, answers)
      .then(async (connected) => {
        current = connected;
        if (gone) return void connected.close();
        setCatalogue(await loadCatalogue(connected));
        setClient(connected);
        setConnection(`connected · ${connected.getNegotiatedProtocolVersion()}`);
      })
      .catch((error: unknown) => !gone && setConnection(`could not connect: ${message(error)}`));
    return () => {
      gone = true;
      setClient(undefined);
      void current?.close();
    };
  }, [generation, revision, answers]);

  useEffect(() => sessionStorage.setItem(FORMS_KEY, JSON.stringify(forms)), [forms]);
  useEffect(() => sessionStorage.setItem('armature-console:selected', JSON.stringify(selected)), [selected]);
  useEffect(() => localStorage.setItem('armature-console:revision', JSON.stringify(revision)), [revision]);

  const items = useMemo(() => itemsOf(catalogue), [catalogue]);
  // What Armature knows of each handler (Class.method, tags, guards), kept while the server restarts.
  const [facts, setFacts] = useState<Readonly<Record<string, HandlerFacts>>>({});
  useEffect(() => {
    if (server.state === 'up') setFacts(server.handlers);
  }, [server]);
  const item = items.find((i) => i.key === selected);
  const schema = item && formSchema(item);
  const value = item && (item.key in forms ? forms[item.key] : schema ? initialValue(schema, schema) : undefined);
  const run = item && runs[item.key];
  const setRun = (key: string, next: Partial<Run>) => setRuns((all) => ({ ...all, [key]: { ...(all[key] as Run), ...next } }));

  const open = async (uri: string) => {
    if (!client) return;
    const key = `resource:${uri}`;
    setSelected(key);
    setRuns((all) => ({ ...all, [key]: { status: 'running', args: {} } }));
    try {
      setRun(key, { status: 'done', read: await client.readResource({ uri }) });
    } catch (error) {
      setRun(key, { status: 'failed', error: message(error) });
    }
  };

  const start = async () => {
    if (!client || !item) return;
    const key = item.key;
    const args = (value ?? {}) as Record<string, unknown>;
    const abort = new AbortController();
    const { traceId, traceparent } = newTraceParent();
    const _meta = { [TRACEPARENT_META_KEY]: traceparent, ...(revision === '2026-07-28' ? { [LOG_LEVEL_META_KEY]: 'debug' } : {}) };
    setRuns((all) => ({ ...all, [key]: { status: 'running', args, traceId, abort } }));
    const options = {
      signal: abort.signal,
      timeout: 600_000,
      resetTimeoutOnProgress: true,
      onprogress: (progress: Progress) => setRun(key, { progress }),
    };
    try {
      if (item.kind === 'tool' && taskMode(item) !== undefined) {
        const created = (await client.callTool({ name: item.name, arguments: args, _meta, task: { ttl: 600_000 } }, options)) as {
          task?: TaskState;
        };
        if (!created.task) throw new Error('the server answered the task-augmented call without a task');
        const taskId = created.task.taskId;
        setRun(key, { task: { taskId, timeline: [] } });
        const onStatus = (state: TaskState) =>
          setRuns((all) => {
            const current = all[key];
            if (!current?.task || current.task.taskId !== taskId) return all;
            return { ...all, [key]: { ...current, task: { taskId, timeline: withStatus(current.task.timeline, state) } } };
          });
        const result = await followTask(client, created.task, onStatus);
        setRun(key, { status: 'done', result, abort: undefined });
      } else if (item.kind === 'tool') {
        const result = (await client.callTool({ name: item.name, arguments: args, _meta }, options)) as CallToolResult;
        const text = result.isError ? result.content?.find((b) => b.type === 'text')?.text : undefined;
        setRun(key, { status: 'done', result, issues: text ? parseIssues(text) : undefined, abort: undefined });
      } else if (item.kind === 'prompt') {
        setRun(key, {
          status: 'done',
          prompt: await client.getPrompt({ name: item.name, arguments: args as Record<string, string>, _meta }, options),
          abort: undefined,
        });
      } else {
        const uri = item.kind === 'resource' ? item.entry.uri : expand(item.entry.uriTemplate, args);
        setRun(key, { status: 'done', read: await client.readResource({ uri, _meta }, options), abort: undefined });
      }
    } catch (error) {
      setRun(key, { status: abort.signal.aborted ? 'cancelled' : 'failed', error: message(error), abort: undefined });
    }
  };

  /** Whether this tool call runs as a task: 'required' by the tool, or asked for ('optional'); only on 2025-11-25. */
  const taskMode = (tool: Item): 'required' | 'optional' | undefined => {
    const support = tool.kind === 'tool' ? (tool.entry as { execution?: { taskSupport?: string } }).execution?.taskSupport : undefined;
    if (revision !== '2025-11-25') return undefined;
    if (support === 'required') return 'required';
    return support === 'optional' && asTask[tool.key] ? 'optional' : undefined;
  };
  const cancel = () => {
    if (!run) return;
    if (run.task && client)
      void cancelTask(client, run.task.taskId).catch((error: unknown) => setRun(item?.key as string, { error: message(error) }));
    else run.abort?.abort('cancelled in the console');
  };
  const support = item?.kind === 'tool' ? (item.entry as { execution?: { taskSupport?: string } }).execution?.taskSupport : undefined;

  const grouped = (['tool', 'resource', 'template', 'prompt'] as const).map((kind) => ({
    kind,
    list: items.filter((i) => i.kind === kind && matches(i, query, facts[i.key])),
  }));
  const titles = { tool: 'Tools', resource: 'Resources', template: 'Resource templates', prompt: 'Prompts' };
  const serverInfo = client?.getServerVersion();
  const appUri = item?.kind === 'tool' ? getToolUiResourceUri(item.entry) : undefined;

  return (
    <div class="console">
      <header>
        <span class="brand">Armature console</span>
        <span class="server-name">{serverInfo ? `${serverInfo.title ?? serverInfo.name} ${serverInfo.version}` : ''}</span>
        <span id="status" class={`status ${client ? 'ok' : server.state}`}>
          {connection}
        </span>
        <label class="revision">
          revision{' '}
          <select id="revision" value={revision} onChange={(e) => setRevision(e.currentTarget.value as Revision)}>
            {REVISIONS.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <input
          id="search"
          type="search"
          placeholder="Search tools, resources, prompts…"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </header>
      <aside class="catalogue">
        {grouped.map(({ kind, list }) =>
          list.length === 0 ? null : (
            <section key={kind}>
              <h3>{titles[kind]}</h3>
              {list.map((i) => (
                <button
                  type="button"
                  key={i.key}
                  data-item={i.key}
                  class={i.key === selected ? 'entry selected' : 'entry'}
                  onClick={() => setSelected(i.key)}
                >
                  <span class="entry-name">{'title' in i.entry && i.entry.title ? i.entry.title : i.name}</span>
                  <span class="entry-description">{i.entry.description}</span>
                </button>
              ))}
            </section>
          ),
        )}
        {items.length > 0 && grouped.every((g) => g.list.length === 0) && <p class="help">Nothing matches “{query}”.</p>}
      </aside>
      <main>
        {server.state === 'failed' && <StartupProblems server={server} />}
        <Asks asks={asks} />
        {item ? (
          <div class="detail" data-detail={item.key}>
            <h2>
              {'title' in item.entry && item.entry.title ? item.entry.title : item.name} <span class="kind">{item.kind}</span>
            </h2>
            <div class="name">
              {item.kind === 'template' ? item.entry.uriTemplate : item.kind === 'resource' ? item.entry.uri : item.name}
            </div>
            {item.entry.description && <p class="description">{item.entry.description}</p>}
            <Badges item={item} facts={facts[item.key]} />
            <details class="schemas">
              <summary>schemas and metadata</summary>
              <pre class="json">{JSON.stringify(item.entry, null, 2)}</pre>
            </details>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void start();
              }}
            >
              {schema && (
                <SchemaForm
                  id="call"
                  schema={schema}
                  value={value}
                  issues={run?.issues}
                  onChange={(next) => setForms((all) => ({ ...all, [item.key]: next }))}
                />
              )}
              <div class="buttons">
                <button type="submit" id="call" class="primary" disabled={!client || run?.status === 'running'}>
                  {item.kind === 'tool' ? 'Call' : item.kind === 'prompt' ? 'Get' : 'Read'}
                </button>
                {support && support !== 'forbidden' && (
                  <label class="as-task">
                    <input
                      type="checkbox"
                      id="as-task"
                      disabled={support === 'required' || revision !== '2025-11-25'}
                      checked={support === 'required' || !!asTask[item.key]}
                      onChange={(e) => setAsTask((all) => ({ ...all, [item.key]: e.currentTarget.checked }))}
                    />{' '}
                    run as a task{revision !== '2025-11-25' ? ' (2025-11-25 only in the console)' : ''}
                  </label>
                )}
                <button type="button" id="cancel" disabled={run?.status !== 'running'} onClick={cancel}>
                  Cancel
                </button>
                <button
                  type="button"
                  id="reset"
                  onClick={() => setForms((all) => ({ ...all, [item.key]: schema ? initialValue(schema, schema) : undefined }))}
                >
                  Reset form
                </button>
                {run && <span class={`run-status ${run.status}`}>{run.status}</span>}
              </div>
            </form>
            {run?.progress && (
              <div class="progress">
                <progress value={run.progress.progress} max={run.progress.total ?? undefined} />
                <span>
                  {run.progress.progress}
                  {run.progress.total !== undefined ? ` / ${run.progress.total}` : ''} {run.progress.message}
                </span>
              </div>
            )}
            {run?.task && (
              <div id="task" class="task">
                <div class="meta">task {run.task.taskId}</div>
                <ol class="timeline">
                  {run.task.timeline.map((entry) => (
                    <li key={`${entry.at}-${entry.status}-${entry.statusMessage}`} class={`task-status ${entry.status}`}>
                      <span class="at">{new Date(entry.at).toLocaleTimeString()}</span> <b>{entry.status}</b> {entry.statusMessage}
                    </li>
                  ))}
                </ol>
              </div>
            )}
            {run?.error && <div class="result error">{run.error}</div>}
            {run?.result && <ResultView result={run.result} open={(uri) => void open(uri)} />}
            {run?.result && appUri && client && !run.result.isError && (
              <AppFrame client={client} uri={appUri} args={run.args} result={run.result} />
            )}
            {run?.read && <ReadView result={run.read} />}
            {run?.prompt && <pre class="json">{JSON.stringify(run.prompt, null, 2)}</pre>}
            {run?.traceId && (
              <div class="trace-panel">
                <h3>Trace</h3>
                <TraceView spans={spans.get(run.traceId) ?? []} />
              </div>
            )}
          </div>
        ) : selected?.startsWith('resource:') && runs[selected] ? (
          // A resource link to a resource the list does not name: what reading it gave.
          <div class="detail" data-detail={selected}>
            <h2>
              {selected.slice('resource:'.length)} <span class="kind">resource</span>
            </h2>
            {runs[selected]?.error && <div class="result error">{runs[selected]?.error}</div>}
            {runs[selected]?.read && <ReadView result={runs[selected]?.read as ReadResourceResult} />}
          </div>
        ) : (
          <p class="help">Pick a tool, resource or prompt on the left.</p>
        )}
      </main>
      <footer>
        <section class="logs">
          <h3>
            Log{' '}
            <select id="log-level" value={logLevel} onChange={(e) => setLogLevel(e.currentTarget.value)}>
              {LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l} and above
                </option>
              ))}
            </select>{' '}
            <button type="button" class="small" onClick={() => setLogs([])}>
              clear
            </button>
          </h3>
          <div class="log-lines">
            {logs
              .filter((l) => LEVELS.indexOf(l.level) >= LEVELS.indexOf(logLevel))
              .map((l) => (
                <div key={l.id} class={`log-line level-${l.level}`}>
                  <span class="at">{l.at}</span> <span class="level">{l.level}</span> {l.logger && <span class="logger">{l.logger}</span>}{' '}
                  {typeof l.data === 'string' ? l.data : JSON.stringify(l.data)}
                </div>
              ))}
          </div>
        </section>
        <section class="roots">
          <h3>Roots</h3>
          <textarea
            id="roots"
            rows={3}
            placeholder="file:///path/to/project (one URI a line)"
            value={rootsText}
            onInput={(e) => setRootsText(e.currentTarget.value)}
          />
          <button
            type="button"
            class="small"
            id="roots-save"
            onClick={() => {
              localStorage.setItem('armature-console:roots', JSON.stringify(rootsText));
              void client?.sendRootsListChanged();
            }}
          >
            set roots
          </button>
        </section>
      </footer>
    </div>
  );
}
