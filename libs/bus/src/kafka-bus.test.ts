import { CompressionTypes } from 'kafkajs';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from '@bda/common';
import { KafkaBus } from './kafka-bus';
import { compressionFor } from './kafka-producer';

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

describe('KafkaBus names', () => {
  const bus = (topicPrefix?: string) =>
    new KafkaBus({ brokers: ['127.0.0.1:9'], clientId: 'names', logger: createLogger('names', 'silent'), topicPrefix });

  it('puts the prefix once in front of topic and group names, joined by one dot', () => {
    expect(bus('t1').topicName('stacks.node-events')).toBe('t1.stacks.node-events');
    expect(bus('t1.').topicName('stacks.node-events')).toBe('t1.stacks.node-events');
    expect(bus('t1.').groupName('indexer-stacks')).toBe('t1.indexer-stacks');
  });

  it('uses the plain names without a prefix, and replaces characters Kafka does not allow', () => {
    expect(bus().topicName('bitcoin.blocks')).toBe('bitcoin.blocks');
    expect(bus('a b/c').topicName('x')).toBe('a_b_c.x');
  });
});
