import type { ConsoleEvent } from '../server/console-server.js';

type Failed = Extract<ConsoleEvent, { type: 'server'; state: 'failed' }>;

export function StartupProblems({ server }: { server: Failed }) {
  return (
    <div id="startup-error" class="startup-error">
      <h2>The server could not start</h2>
      {server.problems.length > 0 ? (
        <ul>
          {server.problems.map((p) => (
            <li key={`${p.code}${p.where}${p.message}`}>
              {p.code && <span class="code">{p.code}</span>} <b>{p.where}</b>: {p.message}
              <div class="fix">Fix: {p.fix}</div>
            </li>
          ))}
        </ul>
      ) : (
        <pre class="text">{server.message}</pre>
      )}
      <p class="help">Save a fix: the server restarts and the console reconnects.</p>
    </div>
  );
}
