import type { SpanRecord } from '../agent/span-record.js';
import { waterfall } from './traces.js';

const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'];

/** A call's spans as a waterfall: one row per span, indented under its parent, its bar placed in time. */
export function TraceView({ spans }: { spans: readonly SpanRecord[] }) {
  const rows = waterfall(spans);
  if (rows.length === 0) return <div class="trace empty">no spans yet</div>;
  return (
    <div id="trace" class="trace">
      {rows.map(({ span, depth, offset, width }) => (
        <div class={`span${span.status.code === 2 ? ' failed' : ''}`} key={span.spanId} title={JSON.stringify(span.attributes, null, 2)}>
          <div class="span-name" style={{ paddingLeft: `${depth * 12}px` }}>
            {span.name} <span class="tag">{KINDS[span.kind] ?? span.kind}</span>
          </div>
          <div class="span-track">
            <div class="span-bar" style={{ left: `${offset * 100}%`, width: `${width * 100}%` }} />
          </div>
          <div class="span-time">{(span.endMs - span.startMs).toFixed(1)} ms</div>
        </div>
      ))}
    </div>
  );
}
