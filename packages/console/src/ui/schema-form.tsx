import type { CallIssues } from './issues.js';
import { fromLocalInput, initialValue, resolve, type Schema, setAt, toLocalInput, typeOf } from './schema.js';

type Path = readonly (string | number)[];

interface FormProps {
  readonly schema: Schema;
  readonly value: unknown;
  readonly onChange: (value: unknown) => void;
  readonly issues?: CallIssues;
  /** Prefix of the fields' ids, so two forms on one page do not clash. */
  readonly id: string;
}

interface FieldProps {
  readonly schema: Schema;
  readonly root: Schema;
  readonly path: Path;
  readonly name: string;
  readonly required: boolean;
  readonly value: unknown;
  readonly set: (path: Path, value: unknown) => void;
  readonly issues?: CallIssues;
  readonly id: string;
}

const dotted = (path: Path) => path.join('.');

function Help({ schema }: { schema: Schema }) {
  const bounds = [
    schema.minimum !== undefined && `≥ ${schema.minimum}`,
    schema.maximum !== undefined && `≤ ${schema.maximum}`,
    schema.minLength !== undefined && `at least ${schema.minLength} characters`,
    schema.maxLength !== undefined && `at most ${schema.maxLength} characters`,
    schema.pattern && `matches /${schema.pattern}/`,
    schema.format && schema.format,
    schema.default !== undefined && `default ${JSON.stringify(schema.default)}`,
  ].filter(Boolean);
  if (!schema.description && bounds.length === 0) return null;
  return (
    <div class="help">
      {schema.description}
      {bounds.length > 0 && <span class="bounds"> {bounds.join(' · ')}</span>}
    </div>
  );
}

function Problems({ issues, path }: { issues?: CallIssues; path: Path }) {
  const found = issues?.byPath.get(dotted(path));
  if (!found) return null;
  return (
    <div class="field-error" role="alert">
      {found.map((message) => (
        <div key={message}>{message}</div>
      ))}
    </div>
  );
}

function Input(props: FieldProps & { node: Schema; inputId: string }) {
  const { node, value, path, set, inputId, required } = props;
  const type = typeOf(node);
  const options = node.enum ?? (node.const !== undefined ? [node.const] : undefined);
  if (options) {
    const index = options.findIndex((o) => JSON.stringify(o) === JSON.stringify(value));
    return (
      <select
        id={inputId}
        value={index === -1 ? '' : String(index)}
        onChange={(e) => set(path, options[Number(e.currentTarget.value)] ?? undefined)}
      >
        {(!required || index === -1) && <option value="">{required ? 'choose…' : '(not set)'}</option>}
        {options.map((o, i) => (
          <option key={String(o)} value={String(i)}>
            {String(o)}
          </option>
        ))}
      </select>
    );
  }
  if (type === 'boolean') {
    return (
      <select
        id={inputId}
        value={value === undefined ? '' : String(value)}
        onChange={(e) => set(path, e.currentTarget.value === '' ? undefined : e.currentTarget.value === 'true')}
      >
        <option value="">(not set)</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  if (type === 'integer' || type === 'number') {
    return (
      <input
        id={inputId}
        type="number"
        step={type === 'integer' ? 1 : 'any'}
        value={value === undefined ? '' : String(value)}
        onInput={(e) => {
          const text = e.currentTarget.value;
          set(path, text === '' ? undefined : Number(text));
        }}
      />
    );
  }
  if (type === 'string' && node.format === 'date-time') {
    return (
      <input
        id={inputId}
        type="datetime-local"
        step={1}
        value={toLocalInput(value)}
        onInput={(e) => set(path, fromLocalInput(e.currentTarget.value))}
      />
    );
  }
  if (type === 'string' && node.format === 'date') {
    return (
      <input
        id={inputId}
        type="date"
        value={typeof value === 'string' ? value : ''}
        onInput={(e) => set(path, e.currentTarget.value || undefined)}
      />
    );
  }
  if (type === 'string') {
    const example = node.examples?.[0];
    const long =
      (node.maxLength ?? 0) > 200 || (node.maxLength === undefined && (node.minLength ?? 0) === 0 && /text|body|content/i.test(props.name));
    const attrs = {
      id: inputId,
      value: typeof value === 'string' ? value : '',
      placeholder: example === undefined ? '' : String(example),
      onInput: (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
        set(path, e.currentTarget.value === '' ? undefined : e.currentTarget.value),
    };
    return long ? <textarea rows={3} {...attrs} /> : <input type="text" {...attrs} />;
  }
  // A free or mixed type: JSON, parsed when it parses.
  return <JsonInput id={inputId} value={value} onChange={(v) => set(path, v)} />;
}

function JsonInput({ id, value, onChange }: { id: string; value: unknown; onChange: (value: unknown) => void }) {
  return (
    <textarea
      id={id}
      rows={3}
      class="json"
      placeholder="JSON"
      value={value === undefined ? '' : JSON.stringify(value)}
      onChange={(e) => {
        const text = e.currentTarget.value.trim();
        if (text === '') return onChange(undefined);
        try {
          onChange(JSON.parse(text));
        } catch {
          onChange(text);
        }
      }}
    />
  );
}

function Field(props: FieldProps) {
  const { root, path, name, required, value, set, issues, id } = props;
  const node = resolve(props.schema, root);
  const type = typeOf(node);
  const key = dotted(path);
  const label = (
    <span class="label">
      {node.title ?? name}
      {required ? (
        <span class="required" title="required">
          {' '}
          *
        </span>
      ) : null}
    </span>
  );
  if (type === 'object' && !node.enum) {
    const object = (value && typeof value === 'object' ? value : undefined) as Record<string, unknown> | undefined;
    return (
      <fieldset class="object" data-path={key}>
        {path.length > 0 && <legend>{label}</legend>}
        {path.length > 0 && <Help schema={node} />}
        {path.length > 0 && !required && object === undefined ? (
          <button type="button" class="small" onClick={() => set(path, initialValue(node, root))}>
            add {name}
          </button>
        ) : (
          Object.entries(node.properties ?? {}).map(([child, schema]) => (
            <Field
              key={child}
              {...props}
              schema={schema}
              path={[...path, child]}
              name={child}
              required={node.required?.includes(child) ?? false}
              value={object?.[child]}
            />
          ))
        )}
        <Problems issues={issues} path={path} />
      </fieldset>
    );
  }
  if (type === 'array' && node.items) {
    const list = Array.isArray(value) ? value : [];
    const items = node.items;
    return (
      <fieldset class="array" data-path={key}>
        <legend>{label}</legend>
        <Help schema={node} />
        {list.map((item, index) => (
          <div class="item" key={index}>
            <Field {...props} schema={items} path={[...path, index]} name={`${name}[${index}]`} required value={item} />
            <button
              type="button"
              class="small remove"
              onClick={() =>
                set(
                  path,
                  list.filter((_, i) => i !== index),
                )
              }
            >
              remove
            </button>
          </div>
        ))}
        <button type="button" class="small add" onClick={() => set(path, [...list, initialValue(items, root)])}>
          add {name} item
        </button>
        <Problems issues={issues} path={path} />
      </fieldset>
    );
  }
  const inputId = `${id}-${key}`;
  return (
    <div class={`field${issues?.byPath.has(key) ? ' invalid' : ''}`} data-path={key}>
      <label for={inputId}>{label}</label>
      <Input {...props} node={node} inputId={inputId} />
      <Help schema={node} />
      <Problems issues={issues} path={path} />
    </div>
  );
}

/** A form for a JSON Schema (a tool's input, an elicitation's requested schema), its issues shown at their fields. */
export function SchemaForm({ schema, value, onChange, issues, id }: FormProps) {
  const set = (path: Path, next: unknown) => onChange(setAt(value, path, next));
  return (
    <div class="schema-form">
      <Field schema={schema} root={schema} path={[]} name="arguments" required value={value} set={set} issues={issues} id={id} />
      {issues && issues.general.length > 0 && (
        <div class="field-error" role="alert">
          {issues.general.map((line) => (
            <div key={line}>{line}</div>
          ))}
        </div>
      )}
    </div>
  );
}
