import { describe, expect, it } from 'vitest';
import { makeUser } from '../../test/fixtures.js';
import { channelTag, macroQuery } from './channelTag.js';

const user = makeUser('demand', {
  config: { host: 'https://ads.example.com/', landing: '', database: 'default' },
  vastParams: [
    { param: 'w', macro: '{{width}}', description: 'Player width in pixels' },
    { param: 'h', macro: '{{height}}', description: 'Player height in pixels' },
    { param: 'cb', macro: '{{cachebuster}}', description: 'Random cache buster' },
    { param: 'channel_id', macro: '{{channel_id}}', description: 'Custom tag parameter' },
  ],
});

describe('channelTag', () => {
  it("builds a VAST channel's URL with the tenant's macros", () => {
    const tag = channelTag({ uid: 'a1b2c3d4e5f60718', integration: 'VAST' }, user);
    expect(tag?.integration).toBe('VAST');
    expect(tag?.text).toBe('https://ads.example.com/vast/a1b2c3d4e5f60718?w={{width}}&h={{height}}&cb={{cachebuster}}&channel_id={{channel_id}}');
  });

  it('leaves the query out when the tenant has no macros', () => {
    expect(channelTag({ uid: 'u1', integration: 'VAST' }, { ...user, vastParams: [] })?.text).toBe('https://ads.example.com/vast/u1');
  });

  it('gives an RTB channel its OpenRTB endpoint', () => {
    expect(channelTag({ uid: 'u2', integration: 'RTB' }, user)).toMatchObject({ integration: 'RTB', text: 'https://ads.example.com/rtb/u2' });
  });

  it('gives a PreBid channel the Prebid Server endpoint with the uid as stored request id', () => {
    const tag = channelTag({ uid: 'u3', integration: 'PreBid' }, user);
    expect(tag?.integration).toBe('PreBid');
    expect(tag?.text.split('\n')).toEqual([
      'Endpoint: https://ads.example.com/openrtb2/auction',
      'Stored request id: u3',
      'Request ext: {"prebid":{"storedrequest":{"id":"u3"}}}',
    ]);
  });

  it('has no tag before the channel is saved', () => {
    expect(channelTag({ uid: null, integration: 'VAST' }, user)).toBeNull();
    expect(channelTag({ integration: 'RTB' }, user)).toBeNull();
  });

  it('joins macros as param=macro pairs and skips blank ones', () => {
    expect(macroQuery([{ param: 'w', macro: '{{width}}', description: '' }, { param: '', macro: '{{x}}', description: '' }])).toBe('w={{width}}');
  });
});
