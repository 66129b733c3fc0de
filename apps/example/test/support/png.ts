import { crc32, inflateSync } from 'node:zlib';

export interface DecodedPng {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  /** RGB triples, row by row (filter type 0 only: enough for the swatches). */
  pixels: Array<[number, number, number]>;
}

const SIGNATURE = '89504e470d0a1a0a';

/** A strict little PNG reader for the tests: checks the signature and every chunk's CRC. */
export function decodePng(bytes: Buffer): DecodedPng {
  if (bytes.subarray(0, 8).toString('hex') !== SIGNATURE) throw new Error('not a PNG: bad signature');
  const chunks = new Map<string, Buffer[]>();
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8).toString('latin1');
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== bytes.readUInt32BE(at + 8 + length)) throw new Error(`bad CRC in ${type}`);
    chunks.set(type, [...(chunks.get(type) ?? []), data]);
    at += 12 + length;
  }
  const header = chunks.get('IHDR')?.[0];
  if (!header || !chunks.has('IEND')) throw new Error('IHDR or IEND missing');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const raw = inflateSync(Buffer.concat(chunks.get('IDAT') ?? []));
  const stride = 1 + width * 3;
  if (raw.length !== stride * height) throw new Error(`IDAT holds ${raw.length} bytes, expected ${stride * height}`);
  const pixels: Array<[number, number, number]> = [];
  for (let y = 0; y < height; y++) {
    if (raw[y * stride] !== 0) throw new Error(`row ${y} uses filter ${raw[y * stride]}`);
    for (let x = 0; x < width; x++) {
      const i = y * stride + 1 + x * 3;
      pixels.push([raw[i] as number, raw[i + 1] as number, raw[i + 2] as number]);
    }
  }
  return { width, height, bitDepth: header[8] as number, colorType: header[9] as number, pixels };
}
