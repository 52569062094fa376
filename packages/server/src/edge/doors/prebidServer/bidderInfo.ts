import { type Edge } from '../edge.js';
import { type EdgeRequest, type EdgeResponse } from '../../../http/edgeHttp.js';
import { send } from './answer.js';
import { BIDDER_CODE } from './auctionRequest.js';

/**
 * Prebid Server's information endpoints, for the one bidder adplane is (docs/prebid.md, "Bad
 * requests and health"), as tools that list a Prebid Server's bidders read them:
 * - GET /info/bidders: the bidder codes (`["adplane"]`); `enabledonly` and `baseadaptersonly` must be true or false;
 * - GET /info/bidders/<code>: what the bidder takes (its status and media types on sites and apps),
 *   `all` every bidder's by code; 404 for another code;
 * - GET /bidders/params: each bidder's parameters as the JSON Schema (draft-04) Prebid Server publishes.
 */
const BIDDER_INFO = {
  status: 'ACTIVE',
  usesHttps: true,
  capabilities: {
    app: { mediaTypes: ['banner', 'video'] },
    site: { mediaTypes: ['banner', 'video'] },
  },
} as const;

/** adplane's parameters: the channel whose demand bids (auctionRequest.ts reads it). */
const BIDDER_PARAMS_SCHEMA = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'adplane Adapter Params',
  description: 'A schema which validates params accepted by the adplane adapter',
  type: 'object',
  properties: {
    // what the auction takes (auctionRequest.ts uidAt): a non-blank string of at most 64 characters
    channel: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      pattern: '\\S',
      description: 'The uid of the adplane channel whose demand bids (its Prebid.js set-up names it)',
    },
  },
  required: ['channel'],
} as const;

const json = (req: EdgeRequest, res: EdgeResponse, status: number, value: unknown): void =>
  send(req, res, status, 'application/json; charset=utf-8', JSON.stringify(value));
const text = (req: EdgeRequest, res: EdgeResponse, status: number, message: string): void =>
  send(req, res, status, 'text/plain; charset=utf-8', `${message}\n`);

/** The paths registerBidderInfo answers (GET). */
export const BIDDER_INFO_PATHS = ['/info/bidders', '/info/bidders/', '/bidders/params'] as const;

export function registerBidderInfo(edge: Edge): void {
  edge.addEntry({
    method: 'GET',
    path: '/info/bidders',
    handle: (req, res, _rest, search) => {
      // as Prebid Server: the filters are booleans (adplane is enabled and a base adapter either way)
      for (const name of ['enabledonly', 'baseadaptersonly']) {
        const v = search.get(name);
        if (v !== null && !/^(true|false)$/i.test(v))
          return text(req, res, 400, `Invalid value for '${name}' query param, must be of boolean type`);
      }
      json(req, res, 200, [BIDDER_CODE]);
    },
  });
  edge.addEntry({
    method: 'GET',
    path: '/info/bidders/',
    handle: (req, res, rest) => {
      const code = rest.toLowerCase();
      if (code === BIDDER_CODE) return json(req, res, 200, BIDDER_INFO);
      if (code === 'all') return json(req, res, 200, { [BIDDER_CODE]: BIDDER_INFO });
      text(req, res, 404, `Unknown bidder: ${rest.slice(0, 64)}`);
    },
  });
  edge.addEntry({
    method: 'GET',
    path: '/bidders/params',
    handle: (req, res) => json(req, res, 200, { [BIDDER_CODE]: BIDDER_PARAMS_SCHEMA }),
  });
}
