// Files packed the way the store packed them before chunks were stored in sub-blocks: a raw snapshot
// (CMEMSNP2) or delta (CMEMDLT1) rewritten in place with each 64 KiB chunk raw-deflated whole
// (snapshot "CMEMSNP3", delta "CMEMDLT2"; docs/reliability.md), as data dirs on users' disks hold
// them. Tests use it to check that such files still open and are packed again in sub-blocks.
import * as fs from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

const CHUNK = 64 << 10;

/** The chunk as a file packed whole stores it: deflated at level 1, or raw when that is no smaller. */
const stored = (raw: Buffer): Buffer => {
  const d = deflateRawSync(raw, { level: 1 });
  return d.length < raw.length ? d : raw;
};

/** Rewrites a raw snapshot or delta in place, packed whole; returns the new magic. */
export function packWhole(file: string): string {
  const b = fs.readFileSync(file);
  const magic = b.subarray(0, 8).toString('latin1');
  let out: Buffer;
  if (magic === 'CMEMSNP2') {
    const length = Number(b.readBigUInt64LE(8));
    const chunks: Buffer[] = [];
    const table = Buffer.alloc(8 * Math.ceil(length / CHUNK));
    for (let i = 0; i * CHUNK < length; i++) {
      const raw = b.subarray(24 + i * CHUNK, 24 + Math.min(length, (i + 1) * CHUNK));
      const s = stored(raw);
      table.writeUInt32LE(crc32(raw), 8 * i);
      table.writeUInt32LE(s.length, 8 * i + 4);
      chunks.push(s);
    }
    const head = Buffer.from(b.subarray(0, 24));
    head.write('CMEMSNP3', 0, 'latin1');
    head.writeUInt32LE(crc32(table), 20);
    out = Buffer.concat([head, ...chunks, table]);
  } else if (magic === 'CMEMDLT1') {
    const count = b.readUInt32LE(36);
    const head = Buffer.from(b.subarray(0, 48));
    head.write('CMEMDLT2', 0, 'latin1');
    const list = Buffer.alloc(12 * count);
    const chunks: Buffer[] = [];
    for (let k = 0; k < count; k++) {
      const raw = b.subarray(48 + 8 * count + k * CHUNK, 48 + 8 * count + (k + 1) * CHUNK);
      const s = stored(raw);
      list.writeUInt32LE(b.readUInt32LE(48 + 8 * k), 12 * k);
      list.writeUInt32LE(b.readUInt32LE(48 + 8 * k + 4), 12 * k + 4);
      list.writeUInt32LE(s.length, 12 * k + 8);
      chunks.push(s);
    }
    head.writeUInt32LE(crc32(Buffer.concat([head.subarray(0, 40), list])), 40);
    out = Buffer.concat([head, list, ...chunks]);
  } else throw new Error(`${file}: ${magic} is not a raw snapshot or delta`);
  const tmp = `${file}.whole`;
  fs.writeFileSync(tmp, out);
  fs.renameSync(tmp, file);
  return out.subarray(0, 8).toString('latin1');
}
