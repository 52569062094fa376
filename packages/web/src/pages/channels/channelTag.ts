import { type AuthUser, type Integration, edgeOrigin, PREBID_AUCTION_PATH, rtbChannelPath, vastTagPath } from '@adplane/shared';

/** What a publisher needs to call a channel, by the channel's integration. */
export interface ChannelTag {
  integration: Integration;
  /** The text to copy: what the publisher pastes into its player, SSP or Prebid Server config. */
  text: string;
  /** One line on where it goes. */
  hint: string;
}

export interface TaggedChannel {
  uid?: string | null;
  integration?: unknown;
}

/** `param=macro` pairs of the tenant's tag macros, as the VAST URL carries them (`w={{width}}&h={{height}}`). */
export function macroQuery(vastParams: AuthUser['vastParams']): string {
  return vastParams
    .filter((p) => p.param.trim() !== '' && p.macro.trim() !== '')
    .map((p) => `${p.param}=${p.macro}`)
    .join('&');
}

/**
 * The ready-to-copy tag of a saved channel (it needs the uid the server gives on create):
 * - VAST: the channel's VAST URL with the tenant's macros, `https://host/vast/<uid>?w={{width}}&...`;
 * - RTB: the OpenRTB endpoint the publisher's SSP posts bid requests to, `https://host/rtb/<uid>`;
 * - PreBid: the Prebid Server auction endpoint and the stored request id (the uid) to reference.
 * Null for a channel without a uid (not saved yet).
 */
export function channelTag(channel: TaggedChannel, user: Pick<AuthUser, 'config' | 'vastParams'>): ChannelTag | null {
  const uid = channel.uid?.trim();
  if (!uid) return null;
  // The paths are the edge's own routes (packages/shared edge/paths.ts).
  const host = edgeOrigin(user.config.host);
  switch (channel.integration) {
    case 'RTB':
      return { integration: 'RTB', text: `${host}${rtbChannelPath(uid)}`, hint: 'OpenRTB 2.6 endpoint: the SSP posts its bid requests here.' };
    case 'PreBid': {
      const endpoint = `${host}${PREBID_AUCTION_PATH}`;
      const ext = JSON.stringify({ prebid: { storedrequest: { id: uid } } });
      return {
        integration: 'PreBid',
        text: `Endpoint: ${endpoint}\nStored request id: ${uid}\nRequest ext: ${ext}`,
        hint: 'Prebid Server auction endpoint; the request names this channel as its stored request.',
      };
    }
    default: {
      const query = macroQuery(user.vastParams);
      return {
        integration: 'VAST',
        text: `${host}${vastTagPath(uid)}${query ? `?${query}` : ''}`,
        hint: 'VAST tag URL: the player fills in the {{macros}} before calling it.',
      };
    }
  }
}
