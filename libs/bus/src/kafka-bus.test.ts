import { CompressionTypes } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { compressionFor } from './kafka-bus';

const msg = (bytes: number) => ({ key: 'stacks', value: Buffer.alloc(bytes, 0x61) });

describe('compressionFor', () => {
  it('sends small batches uncompressed', () => {
    expect(compressionFor([msg(1_853)], 65_536)).toBe(CompressionTypes.None);
  });

  it('gzips a batch once its values add up to the threshold', () => {
    expect(compressionFor([msg(65_535)], 65_536)).toBe(CompressionTypes.None);
    expect(compressionFor([msg(65_536)], 65_536)).toBe(CompressionTypes.GZIP);
    expect(compressionFor([msg(40_000), msg(30_000)], 65_536)).toBe(CompressionTypes.GZIP);
  });

  it('gzips everything with a threshold of 0', () => {
    expect(compressionFor([msg(10)], 0)).toBe(CompressionTypes.GZIP);
  });
});
