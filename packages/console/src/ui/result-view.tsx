import type { ContentBlock, ReadResourceResult } from '@modelcontextprotocol/client';

type Contents = ReadResourceResult['contents'][number];

function ResourceContents({ contents }: { contents: Contents }) {
  if ('text' in contents) {
    return (
      <div class="embedded">
        <div class="meta">
          {contents.uri} {contents.mimeType && <span class="tag">{contents.mimeType}</span>}
        </div>
        <pre>{contents.text}</pre>
      </div>
    );
  }
  const mime = contents.mimeType ?? 'application/octet-stream';
  const src = `data:${mime};base64,${contents.blob}`;
  return (
    <div class="embedded">
      <div class="meta">
        {contents.uri} <span class="tag">{mime}</span>
      </div>
      {mime.startsWith('image/') ? (
        <img src={src} alt={contents.uri} />
      ) : (
        <a href={src} download>
          download ({Math.round((contents.blob.length * 3) / 4)} bytes)
        </a>
      )}
    </div>
  );
}

export function Block({ block, open }: { block: ContentBlock; open: (uri: string) => void }) {
  switch (block.type) {
    case 'text':
      return <pre class="text">{block.text}</pre>;
    case 'image':
      return <img class="image" src={`data:${block.mimeType};base64,${block.data}`} alt="content the server returned" />;
    case 'audio':
      // biome-ignore lint/a11y/useMediaCaption: the server's audio has no captions to show
      return <audio class="audio" controls src={`data:${block.mimeType};base64,${block.data}`} />;
    case 'resource_link':
      return (
        <div class="link">
          <a
            href={block.uri}
            onClick={(e) => {
              e.preventDefault();
              open(block.uri);
            }}
          >
            {block.title ?? block.name ?? block.uri}
          </a>
          {block.description && <span class="help"> {block.description}</span>}
        </div>
      );
    case 'resource':
      return <ResourceContents contents={block.resource} />;
    default:
      return <pre class="json">{JSON.stringify(block, null, 2)}</pre>;
  }
}

/** A tool's result as it came: its error state, structured content, and every content block. */
export function ResultView({
  result,
  open,
}: {
  result: { content?: ContentBlock[]; structuredContent?: unknown; isError?: boolean };
  open: (uri: string) => void;
}) {
  return (
    <div id="result" class={result.isError ? 'result error' : 'result'}>
      <div class="result-head">{result.isError ? 'error result (isError)' : 'result'}</div>
      {result.structuredContent !== undefined && (
        <div class="structured">
          <div class="meta">structuredContent</div>
          <pre class="json">{JSON.stringify(result.structuredContent, null, 2)}</pre>
        </div>
      )}
      {(result.content ?? []).map((block, index) => (
        <Block key={index} block={block} open={open} />
      ))}
    </div>
  );
}

/** What `resources/read` returned. */
export function ReadView({ result }: { result: ReadResourceResult }) {
  return (
    <div id="result" class="result">
      {result.contents.map((contents) => (
        <ResourceContents key={contents.uri} contents={contents} />
      ))}
    </div>
  );
}
