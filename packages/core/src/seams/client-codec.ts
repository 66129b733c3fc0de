// The official client's codec for the protocol revision it negotiated (its protected
// `_negotiatedWireCodec()`): the direct path of a gateway's tool calls decodes and validates each
// answer with it, so that what it hands over is what the client itself would have. Checked on a
// known answer before use; when it is not there or not as expected, the reason is written once on
// stderr and the official client sends every call.
import type { Client } from '@modelcontextprotocol/client';
import { seamMessages } from '../messages/seam-messages.js';

type Json = Record<string, unknown>;

/** A result as the codec decodes it by its `resultType`. */
export type DecodedResult =
  | { readonly kind: 'complete'; readonly result: Json }
  | { readonly kind: 'input_required'; readonly inputRequests: Json; readonly requestState?: string; readonly _meta?: Json }
  | { readonly kind: 'invalid'; readonly error: Error };

/** What the direct path uses of the client's codec. */
export interface ClientCodec {
  decodeResult(method: string, raw: unknown): DecodedResult;
  validateResult(method: string, result: unknown): { ok: true; value: unknown } | { ok: false; reason: string; message?: string };
}

let told = false;

/** `client`'s negotiated codec, or undefined (said once on stderr) when it cannot be used. */
export function clientCodecOf(client: Client): ClientCodec | undefined {
  let problem: string | undefined;
  try {
    const codec = (client as unknown as { _negotiatedWireCodec?: () => Partial<ClientCodec> })._negotiatedWireCodec?.();
    if (typeof codec?.decodeResult !== 'function' || typeof codec.validateResult !== 'function') problem = 'the client has no wire codec';
    else {
      const known = codec.decodeResult('tools/call', { resultType: 'complete', content: [] });
      const checked = known.kind === 'complete' ? codec.validateResult('tools/call', known.result) : undefined;
      if (!checked?.ok || codec.decodeResult('tools/call', {}).kind !== 'invalid')
        problem = 'its wire codec decodes a known answer differently';
      else return codec as ClientCodec;
    }
  } catch (error) {
    problem = `its wire codec failed on a known answer (${error instanceof Error ? error.message : String(error)})`;
  }
  if (!told) process.stderr.write(seamMessages.clientCodecOff(problem));
  told = true;
  return undefined;
}
