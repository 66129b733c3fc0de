import type { CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/client';
import { useState } from 'preact/hooks';
import { initialValue, type Schema } from './schema.js';
import { SchemaForm } from './schema-form.js';

/** A question from the server waiting in the page: an elicitation or a sampling request. */
export type Ask =
  | { readonly id: number; readonly kind: 'elicit'; readonly params: ElicitRequestParams; readonly answer: (result: ElicitResult) => void }
  | {
      readonly id: number;
      readonly kind: 'sample';
      readonly params: CreateMessageRequestParams;
      readonly answer: (result: CreateMessageResult) => void;
    };

function Elicitation({ ask }: { ask: Extract<Ask, { kind: 'elicit' }> }) {
  const params = ask.params;
  const schema = ('requestedSchema' in params ? params.requestedSchema : undefined) as Schema | undefined;
  const [value, setValue] = useState<unknown>(() => (schema ? initialValue(schema, schema) : undefined));
  return (
    <div id="elicitation" class="ask">
      <h3>The server asks</h3>
      <p class="ask-message">{params.message}</p>
      {'url' in params && params.url ? (
        <p>
          <a href={params.url} target="_blank" rel="noreferrer noopener">
            {params.url}
          </a>
        </p>
      ) : null}
      {schema && <SchemaForm id="elicit" schema={schema} value={value} onChange={setValue} />}
      <div class="buttons">
        <button
          type="button"
          id="elicit-accept"
          class="primary"
          onClick={() => ask.answer(schema ? { action: 'accept', content: value as ElicitResult['content'] } : { action: 'accept' })}
        >
          Accept
        </button>
        <button type="button" id="elicit-decline" onClick={() => ask.answer({ action: 'decline' })}>
          Decline
        </button>
        <button type="button" id="elicit-cancel" onClick={() => ask.answer({ action: 'cancel' })}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function Sampling({ ask }: { ask: Extract<Ask, { kind: 'sample' }> }) {
  const [reply, setReply] = useState('');
  return (
    <div id="sampling" class="ask">
      <h3>The server asks for a completion (answer it by hand)</h3>
      {ask.params.systemPrompt && <pre class="text system">{ask.params.systemPrompt}</pre>}
      {ask.params.messages.map((message, index) => (
        <div key={index} class="message">
          <span class="tag">{message.role}</span>
          <pre class="text">{JSON.stringify(message.content, null, 2)}</pre>
        </div>
      ))}
      <textarea
        id="sample-reply"
        rows={4}
        value={reply}
        onInput={(e) => setReply(e.currentTarget.value)}
        placeholder="the assistant's reply"
      />
      <div class="buttons">
        <button
          type="button"
          id="sample-send"
          class="primary"
          onClick={() =>
            ask.answer({
              role: 'assistant',
              content: { type: 'text', text: reply },
              model: 'armature-console (by hand)',
              stopReason: 'endTurn',
            })
          }
        >
          Send reply
        </button>
      </div>
    </div>
  );
}

/** The server's open questions, oldest first. */
export function Asks({ asks }: { asks: readonly Ask[] }) {
  const ask = asks[0];
  if (!ask) return null;
  return ask.kind === 'elicit' ? <Elicitation key={ask.id} ask={ask} /> : <Sampling key={ask.id} ask={ask} />;
}
