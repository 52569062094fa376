import { type FastifyInstance } from 'fastify';
import {
  completeContacts,
  DEFAULT_SUB_SELLER,
  type Profile,
  ProfileUpdate,
  type SubSellerEntry,
} from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { badField, forbidden, parseInput } from '../http/errors.js';
import { ValidationFailed } from '../resources/entityService.js';
import { inTransaction } from '../store/db.js';
import { type ProfileChanges, type SellersJson, updateOwnProfile, type User } from '../store/users.js';
import { isTenant } from '../supplyChain/sellers.js';
import { profileSellerIdErrors } from '../supplyChain/sellerIds.js';
import { readSellerAccountsForSave } from '../supplyChain/sellersJson.js';

const READ_ONLY_TYPES = new Set(['sub', 'adv']);

/** sellers.json as the profile shows it: a demand account's list, a subpublisher's own entry. */
function sellersJsonOf(user: User): Profile['sellersJson'] {
  if (user.type === 'sub') {
    const own = user.sellersJson && !Array.isArray(user.sellersJson) ? user.sellersJson : {};
    return { ...DEFAULT_SUB_SELLER, ...own };
  }
  return Array.isArray(user.sellersJson) ? user.sellersJson : [];
}

/**
 * The profile as its reader may see it. While an admin acts as the user (`adminId`), the account's API
 * token (a credential: debug traces accept it instead of a session) is not sent: the Profile shows the
 * UID instead (docs/console.md, "Acting as another user").
 */
export function profileOf(user: User, adminId: number | null = null): Profile {
  const p = user.profile;
  return {
    id: user.id,
    type: user.type,
    name: user.name,
    companyName: p.companyName,
    companyAddress: p.companyAddress,
    contactNumber: p.contactNumber,
    contactExpired: p.contactExpired,
    uid: user.uid,
    token: adminId === null ? user.token : null,
    domain: user.domain,
    timezone: user.timezone,
    priceReq: user.priceReq,
    priceDsp: user.priceDsp,
    priceImp: user.priceImp,
    pricePostbid: user.pricePostbid,
    postbidPercent: p.postbidPercent,
    setPostbidAll: p.setPostbidAll,
    setCheckIVTAll: p.setCheckIVTAll,
    blockIVT: p.blockIVT,
    delOldCreatives: p.delOldCreatives,
    tagParams: user.tagParams?.length ? user.tagParams : null,
    floorRules: isTenant(user) ? (p.floorRules ?? null) : null,
    contacts: completeContacts(user.contacts),
    sellersJson: sellersJsonOf(user),
    readOnly: READ_ONLY_TYPES.has(user.type),
  };
}

/** The sellers.json form a user type keeps: a list for demand accounts, one entry for subpublishers. */
function sellersJsonFor(type: User['type'], value: ProfileUpdate['sellersJson']): SellersJson | undefined {
  if (value === undefined) return undefined;
  if (type === 'demand') {
    if (!Array.isArray(value))
      throw badField('sellersJson', 'must be a list of sellers (id, domain, name) for a demand account');
    return value as SellersJson;
  }
  if (type === 'sub') {
    if (Array.isArray(value))
      throw badField(
        'sellersJson',
        'must be one seller entry (type, name, id, status, confidential) for a subpublisher',
      );
    return value as SubSellerEntry;
  }
  return undefined;
}

/** The changes a user may make to its own profile; prices, uid, token and domain are set by admins. */
function changesFor(user: User, body: ReturnType<typeof ProfileUpdate.parse>): ProfileChanges {
  const contacts = completeContacts(body.contacts);
  if (user.type === 'sdk') return { name: body.name, contacts };
  const postbid = user.showPostbidPix || user.showPostbidWh;
  return {
    name: body.name,
    timezone: body.timezone,
    tagParams: body.tagParams,
    contacts,
    sellersJson: sellersJsonFor(user.type, body.sellersJson),
    profile: {
      companyName: body.companyName,
      companyAddress: body.companyAddress,
      contactNumber: body.contactNumber,
      contactExpired: body.contactExpired,
      delOldCreatives: body.delOldCreatives,
      // Options the console only shows when the account has the feature; otherwise kept as they are.
      ...(postbid ? { postbidPercent: body.postbidPercent, setPostbidAll: body.setPostbidAll } : {}),
      ...(user.showCheckIVT ? { setCheckIVTAll: body.setCheckIVTAll, blockIVT: body.blockIVT } : {}),
      // the tenant's own: its team members and subpublishers have no floors of their own
      ...(isTenant(user) && body.floorRules !== undefined ? { floorRules: body.floorRules } : {}),
    },
  };
}

/** The Profile modal of non-admin users: their own profile, read and saved. */
export async function demandInfoRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/demand/info', { config: { guard: 'auth' } }, async (request) => {
    const { user, adminId } = requireAuth(request);
    if (user.type === 'admin') throw forbidden('Admins have no profile');
    return profileOf(user, adminId);
  });

  app.put('/api/demand/info', { config: { guard: 'auth' } }, async (request) => {
    const { user, adminId } = requireAuth(request);
    if (user.type === 'admin') throw forbidden('Admins have no profile');
    if (READ_ONLY_TYPES.has(user.type)) throw forbidden('Your profile is read-only');
    const body = parseInput(ProfileUpdate, request.body);
    const changes = changesFor(user, body);
    // While acting as the user an admin may remove tag parameters but not add any (the console's "Add
    // Tag Parameter" OK is disabled then): the account's own tag parameters are its owner's to add.
    if (adminId !== null && changes.tagParams) {
      const had = new Set(user.tagParams ?? []);
      const added = changes.tagParams.filter((param) => !had.has(param));
      if (added.length)
        throw badField('tagParams', `an admin acting as the user cannot add tag parameters (${added.join(', ')})`);
    }
    const updated = await inTransaction(app.store.db, async (trx) => {
      // The tenant's entries are sellers of its sellers.json: each id no other seller's (supplyChain/sellerIds.ts),
      // checked in the transaction that writes them, under the seller-id lock
      if (isTenant(user) && Array.isArray(changes.sellersJson)) {
        const errors = profileSellerIdErrors(
          await readSellerAccountsForSave(trx, app.store.dialect),
          user,
          changes.sellersJson,
        );
        if (errors.length) throw new ValidationFailed(errors);
      }
      return updateOwnProfile(trx, user.id, changes, adminId);
    });
    request.log.info({ userId: user.id, adminId: request.auth?.adminId ?? null }, 'profile updated');
    return profileOf(updated, adminId);
  });
}
