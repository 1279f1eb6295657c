import { describe, expect, it } from '@jest/globals';
import { CV, EventRowBuilder, testAddress } from '../../testing/builders';
import { loadSchemaSources } from '../../openapi';
import { SchemaValidator } from '../../schema-validator';
import { toEventResponse, toEventResponses } from './event';

const validator = new SchemaValidator(loadSchemaSources());
const a = testAddress('a');
const b = testAddress('b');

describe('toEventResponse', () => {
  it('maps each node event type to the reference event shape', () => {
    const rows = [
      new EventRowBuilder().stxTransfer(a, b, '1', '0x00ff').build(),
      new EventRowBuilder().stxMint(b, '2').build(),
      new EventRowBuilder().stxBurn(a, '3').build(),
      new EventRowBuilder().stxLock(a, '4', 100).build(),
      new EventRowBuilder().ftTransfer('SP000000000000000000002Q6VF78.t::t', a, b, '5').build(),
      new EventRowBuilder().ftMint('SP000000000000000000002Q6VF78.t::t', b, '6').build(),
      new EventRowBuilder().nftMint('SP000000000000000000002Q6VF78.n::n', b, CV.u100).build(),
      new EventRowBuilder().nftBurn('SP000000000000000000002Q6VF78.n::n', a, CV.u100).build(),
      new EventRowBuilder().contractLog('SP000000000000000000002Q6VF78.c', CV.asciiHi).build(),
    ];
    const events = toEventResponses(rows);
    expect(events.map((e) => e.event_type)).toEqual([
      'stx_asset',
      'stx_asset',
      'stx_asset',
      'stx_lock',
      'fungible_token_asset',
      'fungible_token_asset',
      'non_fungible_token_asset',
      'non_fungible_token_asset',
      'smart_contract_log',
    ]);
    for (const e of events) validator.validateComponent('transaction-event.schema.json', e);
  });

  it('decodes the value when the indexer stored no repr', () => {
    const e = toEventResponse(
      new EventRowBuilder().contractLog('SP000000000000000000002Q6VF78.c', { hex: CV.okTrue.hex, repr: null }).build(),
    );
    expect(e).toMatchObject({ contract_log: { value: CV.okTrue } });
  });

  it('keeps a transfer memo and drops an empty one', () => {
    expect(toEventResponse(new EventRowBuilder().stxTransfer(a, b, '1', '0x01').build())).toMatchObject({
      asset: { memo: '0x01' },
    });
    expect(toEventResponse(new EventRowBuilder().stxTransfer(a, b, '1', '0x').build())).not.toHaveProperty('asset.memo');
    expect(toEventResponse(new EventRowBuilder().stxMint(b, '1').with({ memo: '0x01' }).build())).not.toHaveProperty(
      'asset.memo',
    );
  });

  it('leaves out event types it does not know', () => {
    expect(toEventResponse(new EventRowBuilder().with({ type: 'future_event' }).build())).toBeNull();
    expect(toEventResponses([new EventRowBuilder().with({ type: 'future_event' }).build()])).toEqual([]);
  });
});
