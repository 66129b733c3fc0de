import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  // The CRC covers the chunk type and data, not the length (PNG spec, section 5.3).
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid PNG of `width` x `height` pixels, all of one RGB colour: 8-bit truecolour, no
 * interlacing, each scanline prefixed with filter byte 0. Small enough to build per call, so the
 * example needs no image library and no file on disk.
 */
export function solidPng(width: number, height: number, [red, green, blue]: readonly [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour (RGB)
  // compression, filter and interlace methods stay 0
  const scanline = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) scanline.set([red, green, blue], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => scanline));
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}
