import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { as, buildTestApp, forEachStore, login } from '../helpers.js';

/**
 * Ten creations at once with the same user name: one 201, and whatever the timing the others get a
 * 400 or 409 naming the field (never a 500 from the unique index).
 */
forEachStore((t) => {
  let app: FastifyInstance;
  let demand: string;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
    demand = await login(app, 'demand');
  });
  afterAll(async () => app.close());

  const create = (username: string, email = '') =>
    as(app, demand, {
      method: 'POST',
      url: '/api/demand/advs',
      payload: { name: `Race ${username}`, username, email, password: 'a-long-unusual-passphrase' },
    });

  it('answers one 201 and a 400/409 naming username for the others of ten concurrent creations', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => create('race-adv')));
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    for (const r of answers.filter((a) => a.statusCode !== 201)) {
      expect([400, 409]).toContain(r.statusCode);
      expect(r.json()).toMatchObject({ field: 'username' });
    }
    const rows = await t.store.db.selectFrom('users').select('id').where('username', '=', 'race-adv').execute();
    expect(rows).toHaveLength(1);
  });

  it('names the e-mail when ten concurrent creations share it (any case)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(`race-mail-${i}`, i % 2 ? 'Race@Example.test' : 'race@example.test')),
    );
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1);
    for (const r of answers.filter((a) => a.statusCode !== 201)) {
      expect([400, 409], r.body).toContain(r.statusCode);
      expect(r.json()).toMatchObject({ field: 'email' });
    }
  });
});
