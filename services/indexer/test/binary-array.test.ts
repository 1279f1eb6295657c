import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, testInfra } from '@bda/test-support';
import { encodeBinaryArray, PG_TYPE } from '../src/binary-array';
import { arrayLiteral, arrayParameter } from '../src/write-statements';

const TYPE_NAME: Record<number, string> = {
  [PG_TYPE.bool]: 'boolean',
  [PG_TYPE.bytea]: 'bytea',
  [PG_TYPE.int8]: 'bigint',
  [PG_TYPE.int2]: 'smallint',
  [PG_TYPE.int4]: 'integer',
  [PG_TYPE.text]: 'text',
  [PG_TYPE.json]: 'json',
  [PG_TYPE.varchar]: 'character varying(20)',
  [PG_TYPE.jsonb]: 'jsonb',
};

describe('encodeBinaryArray', () => {
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'binarray') });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
  });

  /** What PostgreSQL reads from the binary parameter and from the text literal of the same values, as text. */
  async function bothWays(values: unknown[], oid: number): Promise<{ binary: string; text: string }> {
    const binary = encodeBinaryArray(values, oid);
    expect(binary).toBeInstanceOf(Buffer);
    const type = TYPE_NAME[oid]!;
    const sql = `SELECT $1::${type}[]::text AS a, array_length($1::${type}[], 1) AS n`;
    const viaBinary = await client.query<{ a: string; n: number | null }>(sql, [binary]);
    const viaText = await client.query<{ a: string; n: number | null }>(sql, [arrayLiteral(values)]);
    expect(viaBinary.rows[0]!.n).toBe(values.length === 0 ? null : values.length);
    return { binary: viaBinary.rows[0]!.a, text: viaText.rows[0]!.a };
  }

  it('sends text exactly, with array syntax, quotes, backslashes, multi-byte characters and nulls', async () => {
    const values = [
      'plain',
      'with "quotes", {braces} and a \\ backslash',
      null,
      'é, 中文, and 🚀 (a surrogate pair)',
      '',
      'NULL',
    ];
    const { binary, text } = await bothWays(values, PG_TYPE.text);
    expect(binary).toBe(text);
    const [row] = (
      await client.query<{ a: Array<string | null> }>('SELECT $1::text[] AS a', [encodeBinaryArray(values, PG_TYPE.text)])
    ).rows;
    expect(row!.a).toEqual(values);
  });

  it('sends integers of every width at their limits, from numbers, bigints and decimal strings', async () => {
    const cases: Array<[number, unknown[]]> = [
      [PG_TYPE.int2, [-32768, 32767, 0, null, '12']],
      [PG_TYPE.int4, [-2147483648, 2147483647, 7, null, 5n]],
      [
        PG_TYPE.int8,
        [
          '-9223372036854775808',
          '9223372036854775807',
          9007199254740991,
          -9007199254740991,
          4294967296,
          -4294967297,
          -1,
          0,
          null,
          -3n,
        ],
      ],
    ];
    for (const [oid, values] of cases) {
      const { binary, text } = await bothWays(values, oid);
      expect(binary).toBe(text);
    }
    const [row] = (
      await client.query<{ a: string[] }>('SELECT $1::bigint[]::text[] AS a', [
        encodeBinaryArray(['9223372036854775807', -1, 0n], PG_TYPE.int8),
      ])
    ).rows;
    expect(row!.a).toEqual(['9223372036854775807', '-1', '0']);
  });

  it('sends bytea as raw bytes, booleans, and varchar within its length', async () => {
    const bytes = [Buffer.from('00ff10', 'hex'), Buffer.alloc(0), null, Buffer.from('hello')];
    const [row] = (
      await client.query<{ a: Array<Buffer | null> }>('SELECT $1::bytea[] AS a', [encodeBinaryArray(bytes, PG_TYPE.bytea)])
    ).rows;
    expect(row!.a).toEqual(bytes);
    expect((await bothWays([true, false, null], PG_TYPE.bool)).binary).toBe('{t,f,NULL}');
    const { binary, text } = await bothWays(['SP000', 'ü'], PG_TYPE.varchar);
    expect(binary).toBe(text);
  });

  it('sends json and jsonb from objects and from JSON text, as the text literal does', async () => {
    const values = [{ a: 1, s: 'é "q" \\' }, '{"already":"json","n":[1,2]}', null, [1, 'two'], '"a string"'];
    for (const oid of [PG_TYPE.jsonb, PG_TYPE.json]) {
      const { binary, text } = await bothWays(values, oid);
      expect(binary).toBe(text);
    }
    const [row] = (await client.query<{ a: unknown[] }>('SELECT $1::jsonb[] AS a', [encodeBinaryArray(values, PG_TYPE.jsonb)]))
      .rows;
    expect(row!.a).toEqual([{ a: 1, s: 'é "q" \\' }, { already: 'json', n: [1, 2] }, null, [1, 'two'], 'a string']);
  });

  it('sends an empty array and an array of nulls', async () => {
    expect((await bothWays([], PG_TYPE.text)).binary).toBe('{}');
    expect((await bothWays([null, undefined], PG_TYPE.int4)).binary).toBe('{NULL,NULL}');
  });

  it('declines what it cannot encode exactly, so that the text literal is sent instead', () => {
    expect(encodeBinaryArray(['1'], 1700 /* numeric */)).toBeUndefined();
    expect(encodeBinaryArray([2147483648], PG_TYPE.int4)).toBeUndefined();
    expect(encodeBinaryArray(['9223372036854775808'], PG_TYPE.int8)).toBeUndefined();
    expect(encodeBinaryArray([1.5], PG_TYPE.int4)).toBeUndefined();
    expect(encodeBinaryArray(['12abc'], PG_TYPE.int4)).toBeUndefined();
    expect(encodeBinaryArray(['\\x00'], PG_TYPE.bytea)).toBeUndefined();
    expect(encodeBinaryArray(['t'], PG_TYPE.bool)).toBeUndefined();
    expect(encodeBinaryArray([true], PG_TYPE.jsonb)).toBeUndefined();
    expect(encodeBinaryArray([new Date(0)], PG_TYPE.text)).toBeUndefined();
  });

  it('falls back to the text literal for a column it declines, which PostgreSQL still reads exactly', async () => {
    const parameter = arrayParameter(['340282366920938463463374607431768211455', null], 1700);
    expect(typeof parameter).toBe('string');
    const [row] = (await client.query<{ a: string }>('SELECT $1::numeric(40,0)[]::text AS a', [parameter])).rows;
    expect(row!.a).toBe('{340282366920938463463374607431768211455,NULL}');
  });
});
