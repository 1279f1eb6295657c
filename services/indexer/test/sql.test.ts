import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDb } from '@bda/db';
import { createTestDatabase, testInfra } from '@bda/test-support';
import {
  buildUnnestInsert,
  columnTypesOf,
  knownColumnTypes,
  loadColumnTypes,
  runPrepared,
  unnestInsert,
  withConstants,
  WriteBatch,
} from '../src/write-statements';

describe('WriteBatch', () => {
  let db: Knex;

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'sql'), maxConnections: 2 });
    await db.schema.createTable('wb_items', (t) => {
      t.integer('id').primary();
      t.text('label').notNullable();
      t.text('note');
    });
    await db.schema.createTable('wb_other', (t) => {
      t.text('key').primary();
      t.decimal('amount', 39, 0).notNullable();
    });
  });

  afterAll(async () => {
    await db.destroy();
  });

  it('writes every queued statement with its own bindings in one statement', async () => {
    await db.transaction(async (trx) => {
      const writes = new WriteBatch(trx);
      await writes.add(
        trx('wb_items').insert([
          { id: 1, label: "it's one", note: null },
          { id: 2, label: 'two $1 ?' },
        ]),
      );
      await writes.add(trx('wb_other').insert({ key: 'k', amount: '340282366920938463463374607431768211455' }));
      await writes.add(trx.raw('UPDATE wb_items SET note = :note WHERE id = :id', { note: 'untouched: same snapshot', id: 99 }));
      await writes.flush();
    });
    expect(await db('wb_items').orderBy('id')).toEqual([
      { id: 1, label: "it's one", note: null },
      { id: 2, label: 'two $1 ?', note: null },
    ]);
    // A u128-sized value goes through exactly: bound as text, never as a JS number.
    expect(await db('wb_other').select('key', db.raw('amount::text AS amount'))).toEqual([
      { key: 'k', amount: '340282366920938463463374607431768211455' },
    ]);
  });

  it('flushes on its own before a statement would carry too many bind parameters', async () => {
    const rows = Array.from({ length: 12_000 }, (_, i) => ({ id: 1000 + i, label: `row ${i}` }));
    await db.transaction(async (trx) => {
      const writes = new WriteBatch(trx);
      // 3 × 4,000 rows × 2 columns = 24,000 bindings: under the limit together; a fourth batch goes on its own.
      for (let i = 0; i < rows.length; i += 4_000) await writes.add(trx('wb_items').insert(rows.slice(i, i + 4_000)));
      await writes.add(trx('wb_items').insert(Array.from({ length: 4_000 }, (_, i) => ({ id: 20_000 + i, label: 'late' }))));
      await writes.flush();
    });
    const [counted] = await db('wb_items').where('id', '>=', 1000).count<Array<{ count: string }>>('* as count');
    expect(Number(counted?.count)).toBe(16_000);
  });

  it('rolls back with the transaction', async () => {
    await expect(
      db.transaction(async (trx) => {
        const writes = new WriteBatch(trx);
        await writes.add(trx('wb_other').insert({ key: 'rolled back', amount: '1' }));
        await writes.add(trx('wb_items').insert({ id: 500, label: 'first' }));
        await writes.add(trx('wb_items').insert({ id: 500, label: 'duplicate key' }));
        await writes.flush();
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await db('wb_items').where({ id: 500 })).toEqual([]);
    expect(await db('wb_other').where({ key: 'rolled back' })).toEqual([]);
  });
});

describe('runPrepared', () => {
  it('runs a statement by name on the transaction connection, repeatedly, seeing its uncommitted rows', async () => {
    const db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'sqlp'), maxConnections: 1 });
    try {
      await db.schema.createTable('rp_items', (t) => t.integer('id').primary());
      await db.transaction(async (trx) => {
        await trx('rp_items').insert([{ id: 1 }, { id: 2 }, { id: 3 }]);
        for (const min of [1, 2, 3]) {
          const rows = await runPrepared<{ n: string }>(trx, 'SELECT count(*) AS n FROM rp_items WHERE id >= $1', [min]);
          expect(rows).toEqual([{ n: String(4 - min) }]);
        }
      });
    } finally {
      await db.destroy();
    }
  });
});

describe('unnestInsert', () => {
  let db: Knex;

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'unnest'), maxConnections: 1 });
    await db.schema.createTable('un_rows', (t) => {
      t.text('id').primary();
      t.integer('n').notNullable();
      t.bigInteger('big');
      t.decimal('amount', 39, 0);
      t.boolean('flag').notNullable();
      t.binary('raw');
      t.jsonb('doc');
      t.string('short', 16);
    });
  });

  afterAll(async () => {
    await db.destroy();
  });

  it('inserts every value exactly: text with array syntax, bytea, jsonb, u128, bigint, nulls', async () => {
    const rows = [
      {
        id: 'a,{b}"c\\d NULL',
        n: 1,
        big: 9007199254740993n,
        amount: '340282366920938463463374607431768211455',
        flag: true,
        raw: Buffer.from([0, 1, 0xfe, 0xff]),
        doc: JSON.stringify({ q: 'say "hi"\\', list: [1, null] }),
        short: 'NULL',
      },
      { id: '', n: -2, big: null, amount: null, flag: false, raw: null, doc: null, short: null },
    ];
    await db.transaction(async (trx) => {
      const writes = new WriteBatch(trx);
      await writes.add(await unnestInsert(trx, 'un_rows', rows));
      await writes.flush();
    });
    const back = await db('un_rows')
      .select('id', 'n', db.raw('big::text AS big'), db.raw('amount::text AS amount'), 'flag', 'raw', 'doc', 'short')
      .orderBy('n', 'desc');
    expect(back).toEqual([
      {
        id: 'a,{b}"c\\d NULL',
        n: 1,
        big: '9007199254740993',
        amount: '340282366920938463463374607431768211455',
        flag: true,
        raw: Buffer.from([0, 1, 0xfe, 0xff]),
        doc: { q: 'say "hi"\\', list: [1, null] },
        short: 'NULL',
      },
      { id: '', n: -2, big: null, amount: null, flag: false, raw: null, doc: null, short: null },
    ]);
  });

  it('gives the same statement text for any number of rows, and skips conflicting rows when asked', async () => {
    const one = { id: 'k1', n: 10, big: null, amount: null, flag: true, raw: null, doc: null, short: null };
    const two = { ...one, id: 'k2', n: 11 };
    await db.transaction(async (trx) => {
      const a = await unnestInsert(trx, 'un_rows', [one], { onConflict: ['id'] });
      const b = await unnestInsert(trx, 'un_rows', [one, two, { ...one, n: 99 }], { onConflict: ['id'] });
      expect(b.sql).toBe(a.sql);
      const writes = new WriteBatch(trx);
      await writes.add(a);
      await writes.flush();
      await writes.add(b);
      await writes.flush();
    });
    expect(await db('un_rows').whereIn('id', ['k1', 'k2']).orderBy('id').select('id', 'n')).toEqual([
      { id: 'k1', n: 10 },
      { id: 'k2', n: 11 },
    ]);
  });

  it('applies the conflict action it is given, with the same text for any number of rows', async () => {
    const row = { id: 'c1', n: 1, big: null, amount: null, flag: true, raw: null, doc: null, short: null };
    const action = 'DO UPDATE SET n = excluded.n WHERE un_rows.n < excluded.n';
    await db.transaction(async (trx) => {
      const first = await unnestInsert(trx, 'un_rows', [row], { onConflict: ['id'], conflictAction: action });
      const again = await unnestInsert(
        trx,
        'un_rows',
        [
          { ...row, n: 5 },
          { ...row, id: 'c2', n: 7 },
        ],
        { onConflict: ['id'], conflictAction: action },
      );
      const lower = await unnestInsert(trx, 'un_rows', [{ ...row, n: 3 }], { onConflict: ['id'], conflictAction: action });
      expect(again.sql).toBe(first.sql);
      expect(first.sql).toContain(`ON CONFLICT ("id") ${action}`);
      for (const statement of [first, again, lower]) {
        const writes = new WriteBatch(trx);
        await writes.add(statement);
        await writes.flush();
      }
    });
    expect(await db('un_rows').whereIn('id', ['c1', 'c2']).orderBy('id').select('id', 'n')).toEqual([
      { id: 'c1', n: 5 },
      { id: 'c2', n: 7 },
    ]);
  });

  it('binds constant columns once for all rows, with the same text whatever their values', async () => {
    const rows = [
      { id: 'const-1', n: 1, big: null, raw: null, doc: null, short: null },
      { id: 'const-2', n: 2, big: null, raw: null, doc: null, short: null },
    ];
    await db.transaction(async (trx) => {
      const types = await columnTypesOf(trx, 'un_rows');
      const insert = buildUnnestInsert(types, 'un_rows', rows, { constants: ['flag', 'amount'] });
      const yes = withConstants(insert, [true, '340282366920938463463374607431768211455']);
      const no = withConstants(
        buildUnnestInsert(types, 'un_rows', [{ ...rows[0]!, id: 'const-3' }], { constants: ['flag', 'amount'] }),
        [false, null],
      );
      expect(no.sql).toBe(yes.sql);
      expect(() => withConstants(insert, [true])).toThrow('2 constants (flag, amount), 1 values');
      for (const statement of [yes, no]) {
        const writes = new WriteBatch(trx);
        await writes.add(statement);
        await writes.flush();
      }
    });
    expect(
      await db('un_rows')
        .whereIn('id', ['const-1', 'const-2', 'const-3'])
        .orderBy('id')
        .select('id', 'n', 'flag', db.raw('amount::text AS amount')),
    ).toEqual([
      { id: 'const-1', n: 1, flag: true, amount: '340282366920938463463374607431768211455' },
      { id: 'const-2', n: 2, flag: true, amount: '340282366920938463463374607431768211455' },
      { id: 'const-3', n: 1, flag: false, amount: null },
    ]);
  });

  it('computes columns in PostgreSQL from each row of its own values, and lets the conflict action use them', async () => {
    const row = { id: 'cmp-1', n: 5, big: null, amount: null, raw: null, doc: null, short: null };
    const options = {
      computed: { flag: `EXISTS (SELECT 1 FROM un_rows o WHERE o.id = u."id" || '-seen')` },
      onConflict: ['id'],
      conflictAction: 'DO UPDATE SET flag = excluded.flag',
    };
    await db.transaction(async (trx) => {
      await trx('un_rows').insert({ id: 'cmp-2-seen', n: 0, flag: false });
      const one = await unnestInsert(trx, 'un_rows', [row], options);
      const two = await unnestInsert(
        trx,
        'un_rows',
        [
          { ...row, id: 'cmp-2' },
          { ...row, id: 'cmp-3' },
        ],
        options,
      );
      expect(two.sql).toBe(one.sql);
      for (const statement of [one, two]) {
        const writes = new WriteBatch(trx);
        await writes.add(statement);
        await writes.flush();
      }
      // Seen now: the conflict action takes the value computed for the new row.
      await trx('un_rows').insert({ id: 'cmp-1-seen', n: 0, flag: false });
      const writes = new WriteBatch(trx);
      await writes.add(await unnestInsert(trx, 'un_rows', [row], options));
      await writes.flush();
    });
    expect(await db('un_rows').whereIn('id', ['cmp-1', 'cmp-2', 'cmp-3']).orderBy('id').select('id', 'flag')).toEqual([
      { id: 'cmp-1', flag: true },
      { id: 'cmp-2', flag: true },
      { id: 'cmp-3', flag: false },
    ]);
    await expect(
      db.transaction(async (trx) => unnestInsert(trx, 'un_rows', [row], { computed: { nope: 'true' } })),
    ).rejects.toThrow('un_rows has no column nope');
  });

  it('refuses a column the table does not have', async () => {
    await expect(db.transaction(async (trx) => unnestInsert(trx, 'un_rows', [{ id: 'x', nope: 1 }]))).rejects.toThrow(
      'un_rows has no column nope',
    );
  });
});

describe('loadColumnTypes', () => {
  let db: Knex;

  beforeAll(async () => {
    db = createDb({ connectionString: await createTestDatabase(testInfra().databaseUrl, 'coltypes'), maxConnections: 1 });
    await db.schema.createTable('lc_rows', (t) => {
      t.text('id').primary();
      t.bigInteger('big');
      t.decimal('amount', 39, 0);
      t.jsonb('doc');
      t.string('short', 16);
    });
  });

  afterAll(async () => {
    await db.destroy();
  });

  it('reads every table of the schema in one query, so that no later write waits on the catalog', async () => {
    expect(knownColumnTypes('lc_rows')).toBeUndefined();
    expect(await loadColumnTypes(db)).toBeGreaterThanOrEqual(1);
    const types = knownColumnTypes('lc_rows')!;
    expect(Object.fromEntries(types)).toEqual({
      id: { type: 'text', oid: 25 },
      big: { type: 'bigint', oid: 20 },
      amount: { type: 'numeric(39,0)', oid: 1700 },
      doc: { type: 'jsonb', oid: 3802 },
      short: { type: 'character varying(16)', oid: 1043 },
    });
    // What a write asks for later is what the catalog says, taken from memory.
    await db.transaction(async (trx) => expect(await columnTypesOf(trx, 'lc_rows')).toBe(types));
  });
});
