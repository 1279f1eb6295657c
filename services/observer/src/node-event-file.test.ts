import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from '@jest/globals';
import { readNodeEventFile, unescapeCopyText, type RecordedEvent } from './node-event-file';

const dir = mkdtempSync(join(tmpdir(), 'bda-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TSV = [
  '1\t2021-08-05 16:38:39.859937+00\t/new_block\t{"a":"tab\\tinside"}',
  '',
  '2\t2021-08-05 16:38:40+00\t/new_burn_block\t{"b":1}\twith\ttabs',
].join('\n');

async function read(file: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of readNodeEventFile(file)) out.push(e);
  return out;
}

describe('readNodeEventFile', () => {
  it('reads rows in order, skipping blank lines and keeping tabs of the body column', async () => {
    writeFileSync(join(dir, 'events.tsv'), TSV);
    expect(await read(join(dir, 'events.tsv'))).toEqual([
      { id: '1', receivedAt: '2021-08-05 16:38:39.859937+00', path: '/new_block', body: '{"a":"tab\\tinside"}' },
      { id: '2', receivedAt: '2021-08-05 16:38:40+00', path: '/new_burn_block', body: '{"b":1}\twith\ttabs' },
    ]);
  });

  it('reads a gzipped file the same way', async () => {
    writeFileSync(join(dir, 'events.tsv'), TSV);
    writeFileSync(join(dir, 'events.tsv.gz'), gzipSync(TSV));
    expect(await read(join(dir, 'events.tsv.gz'))).toEqual(await read(join(dir, 'events.tsv')));
  });

  it('names the line of a row with too few columns', async () => {
    writeFileSync(join(dir, 'short.tsv'), '1\t2021-08-05 16:38:39+00\t/new_block\t{}\n2\tbroken\n');
    await expect(read(join(dir, 'short.tsv'))).rejects.toThrow(/short\.tsv:2: expected 4 tab-separated columns, got 2/);
  });

  it('fails on a missing file and on a corrupt gzip file', async () => {
    await expect(read(join(dir, 'missing.tsv.gz'))).rejects.toThrow(/ENOENT/);
    writeFileSync(join(dir, 'corrupt.tsv.gz'), Buffer.from('not gzip at all'));
    await expect(read(join(dir, 'corrupt.tsv.gz'))).rejects.toThrow(/incorrect header check/);
  });
});

describe('unescapeCopyText', () => {
  it('undoes the escapes of PostgreSQL COPY text', () => {
    expect(unescapeCopyText('{"a":"x\\\\"y"}')).toBe('{"a":"x\\"y"}');
    expect(unescapeCopyText('a\\tb\\nc\\rd\\\\e')).toBe('a\tb\nc\rd\\e');
    expect(unescapeCopyText('\\b\\f\\v')).toBe('\b\f\v');
    expect(unescapeCopyText('\\101\\x42\\.')).toBe('AB.');
    expect(unescapeCopyText('plain {"json":1}')).toBe('plain {"json":1}');
  });

  it('reads a COPY-escaped file column by column, and refuses NULL columns', async () => {
    writeFileSync(join(dir, 'copy.tsv'), '7\t2021-08-05 16:38:39+00\t/new_block\t{"s":"a\\\\nb\\\\u0000"}\n');
    const [row] = await read2(join(dir, 'copy.tsv'));
    expect(row).toEqual({ id: '7', receivedAt: '2021-08-05 16:38:39+00', path: '/new_block', body: '{"s":"a\\nb\\u0000"}' });
    expect(JSON.parse(row!.body)).toEqual({ s: 'a\nb\u0000' });
    writeFileSync(join(dir, 'null.tsv'), '8\t\\N\t/new_block\t{}\n');
    await expect(read2(join(dir, 'null.tsv'))).rejects.toThrow(/null\.tsv:1: column 2 is NULL/);
  });
});

async function read2(file: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of readNodeEventFile(file, { copyEscaped: true })) out.push(e);
  return out;
}
