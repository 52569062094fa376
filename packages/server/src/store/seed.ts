import { randomBytes } from 'node:crypto';
import { toMicros, type UserType } from '@adplane/shared';
import { generatePassword, hashPassword } from '../auth/passwords.js';
import { type Store } from './db.js';
import { type SeedContext, type SeedStep } from './seedStep.js';
import { type Settings } from '../settings.js';
import { seedEdgeDemo } from './seedEdgeDemo.js';
import { seedInventory } from './seedInventory.js';
import { countUsers, createUser } from './users.js';

export interface SeededUser {
  id: number;
  username: string;
  type: UserType;
  name: string;
  password: string;
}

export interface SeedResult {
  /** False when the store already had users: nothing was touched. */
  seeded: boolean;
  demo: boolean;
  users: SeededUser[];
  /** What the steps asked to be printed after the users (the demo's VAST tags). */
  notes: string[];
}

const token = () => randomBytes(16).toString('hex');

const seedAdmins: SeedStep = async (ctx) => {
  const password = ctx.settings.demoPassword;
  await ctx.addUser(
    { type: 'admin', username: 'admin', email: 'admin@demo.adplane.test', name: 'Platform Admin', uid: 'super' },
    password,
  );
  await ctx.addUser(
    { type: 'admin', username: 'ops', email: 'ops@demo.adplane.test', name: 'Ad Ops', uid: 'ops' },
    password,
  );
};

const seedNorthwind: SeedStep = async (ctx) => {
  const password = ctx.settings.demoPassword;
  const demand = await ctx.addUser(
    {
      type: 'demand',
      username: 'demand',
      email: 'demand@demo.adplane.test',
      name: 'Northwind Media',
      uid: 'nw1',
      token: token(),
      domain: 'ads.northwind.test',
      timezone: -5,
      showDsp: true,
      showSystemCost: true,
      showPostbidPix: true,
      showCheckIVT: true,
      tagParams: ['channel_id'],
      profile: {
        companyName: 'Northwind Media LLC',
        companyAddress: '12 Harbor St, Boston, MA',
        contactNumber: '+1 617 555 0100',
        postbidPercent: 10,
      },
      contacts: [
        {
          type: 'general',
          firstName: 'Nora',
          lastName: 'Wind',
          position: 'Head of Ad Ops',
          contactEmail: 'nora@northwind.test',
        },
      ],
      sellersJson: [{ id: 'nw1-sub-1', domain: 'harborvideo.test', name: 'Harbor Video' }],
      priceReq: toMicros(0.01),
      priceImp: toMicros(0.05),
      pricePostbid: toMicros(0.02),
      priceDsp: 10,
    },
    password,
  );
  const tenant = { tenantId: demand.id };
  await ctx.addUser(
    {
      type: 'demand',
      username: 'manager',
      email: 'manager@demo.adplane.test',
      name: 'Northwind Trader',
      managerId: demand.id,
      ...tenant,
    },
    password,
  );
  await ctx.addUser(
    {
      type: 'sub',
      username: 'sub',
      email: 'sub@demo.adplane.test',
      name: 'Harbor Video',
      domain: 'harborvideo.test',
      ...tenant,
      sellersJson: { type: 'PUBLISHER', name: 'Harbor Video', id: 'nw1-sub-1', status: 1, confidential: 0 },
    },
    password,
  );
  await ctx.addUser(
    {
      type: 'adv',
      username: 'adv',
      email: 'adv@demo.adplane.test',
      name: 'Blue Fin Foods',
      domain: 'bluefin.test',
      ...tenant,
    },
    password,
  );
  await ctx.addUser(
    { type: 'sdk', username: 'sdk', email: 'sdk@demo.adplane.test', name: 'Harbor SDK', token: token(), ...tenant },
    password,
  );
};

const seedAcme: SeedStep = async (ctx) => {
  await ctx.addUser(
    {
      type: 'demand',
      username: 'acme',
      email: 'acme@demo.adplane.test',
      name: 'Acme Video',
      uid: 'ac1',
      token: token(),
      domain: 'ads.acme.test',
      showDsp: false,
      profile: { companyName: 'Acme Video Inc.' },
      priceReq: toMicros(0.02),
      priceImp: toMicros(0.04),
      priceDsp: 12.5,
    },
    ctx.settings.demoPassword,
  );
};

/** The demo workspace, in order: accounts, then every kind of inventory (./seedInventory.ts). */
const DEMO_SEED: SeedStep[] = [seedAdmins, seedNorthwind, seedAcme, seedInventory, seedEdgeDemo];

/** Without the demo: one super admin, with ADPLANE_ADMIN_PASSWORD or a generated password. */
export const ADMIN_ONLY_SEED: SeedStep[] = [
  async (ctx) => {
    await ctx.addUser(
      { type: 'admin', username: 'admin', name: 'Platform Admin', uid: 'super' },
      ctx.settings.adminPassword ?? generatePassword(),
    );
  },
];

/**
 * Fill an empty store (no users at all) in one transaction: the demo workspace, or only the admin.
 * Returns who was created and their passwords, for main.ts to print once; nothing when not empty.
 */
export async function seedIfEmpty(
  store: Store,
  settings: Pick<Settings, 'demo' | 'demoPassword' | 'adminPassword'>,
  steps: SeedStep[] = settings.demo ? DEMO_SEED : ADMIN_ONLY_SEED,
): Promise<SeedResult> {
  if ((await countUsers(store.db)) > 0) return { seeded: false, demo: settings.demo, users: [], notes: [] };
  const created: SeededUser[] = [];
  const notes: string[] = [];
  try {
    await seedInTransaction(store, settings, steps, created, notes);
  } catch (error) {
    // Another node seeded the same empty PostgreSQL store at the same moment: its seed stands.
    if ((await countUsers(store.db)) > 0) return { seeded: false, demo: settings.demo, users: [], notes: [] };
    throw error;
  }
  return { seeded: true, demo: settings.demo, users: created, notes };
}

async function seedInTransaction(
  store: Store,
  settings: Pick<Settings, 'demoPassword' | 'adminPassword'>,
  steps: SeedStep[],
  created: SeededUser[],
  notes: string[],
): Promise<void> {
  const hashes = new Map<string, Promise<string>>();
  await store.db.transaction().execute(async (trx) => {
    const ctx: SeedContext = {
      db: trx,
      store: { ...store, db: trx, close: () => Promise.reject(new Error('The seed does not close the store')) },
      settings,
      users: {},
      passwordHash(password) {
        let hash = hashes.get(password);
        if (!hash) hashes.set(password, (hash = hashPassword(password)));
        return hash;
      },
      async addUser(input, password) {
        const user = await createUser(trx, { ...input, passwordHash: await ctx.passwordHash(password) });
        ctx.users[user.username] = user;
        created.push({ id: user.id, username: user.username, type: user.type, name: user.name, password });
        return user;
      },
      tell: (line) => notes.push(line),
    };
    for (const step of steps) await step(ctx);
  });
}
