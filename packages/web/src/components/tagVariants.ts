import {
  type AuthUser,
  edgeUrl,
  ENVIRONMENT_OPTIONS,
  ENVIRONMENTS,
  macroExample,
  macroFilledIn,
  PREBID_AUCTION_PATH,
  rtbChannelPath,
  STANDARD_TAG_MACROS,
  supplierBidPath,
  type TagEnvironment,
  type TagMacro,
  VAST_VERSION_PARAM,
  VAST_VERSIONS,
  vastTagPath,
} from '@adplane/shared';

/**
 * What a partner pastes, in the variants it may need: a VAST channel's tag per environment (the
 * macros a CTV, app or web player fills, from the shared macro rules in packages/shared
 * edge/tagMacros.ts), an OpenRTB endpoint and a ready test call, a Prebid Server endpoint. The
 * TagPreview component shows one of these models; nothing here is written by hand per variant.
 */
export interface TagVariant {
  key: string;
  /** The selector's label: "CTV", "Mobile app", "Web", "Endpoint", "Test call". */
  label: string;
  /** What to copy and paste. */
  text: string;
  /** One line on where it goes and what is in it. */
  hint: string;
  /** The same call with example values in place of the macros, to see what a player sends. */
  example?: string;
  /** The environment a "Test this tag" run of this variant should mimic. */
  environment?: TagEnvironment;
}

export interface TagPreviewModel {
  /** What the box holds: "VAST tag", "OpenRTB endpoint", "Prebid Server", "Bid endpoint". */
  title: string;
  variants: TagVariant[];
  /** The variant shown first (the channel's own environment). */
  defaultKey: string;
  /** A fact about every variant (the VAST version the channel answers in). */
  note?: string;
  /**
   * A VAST tag's versions: the channel answers in its own (`current`); a tag may ask for another
   * (`vast_version`), for a player that plays only that one. The same model in another version.
   */
  vastVersions?: { current: string; options: readonly string[]; inVersion(version: string): TagPreviewModel };
}

export interface TaggedChannel {
  uid?: string | null;
  integration?: unknown;
  environment?: unknown;
  format?: unknown;
  vastVersion?: unknown;
}

type TagUser = Pick<AuthUser, 'config' | 'vastParams' | 'vast2Params'>;

const ENVIRONMENT_LABELS = new Map<string, string>(ENVIRONMENT_OPTIONS.map((o) => [o.id, o.name]));
const isEnvironment = (v: unknown): v is TagEnvironment => (ENVIRONMENTS as readonly unknown[]).includes(v);
const usable = (macros: readonly TagMacro[]) => macros.filter((p) => p.param.trim() !== '' && p.macro.trim() !== '');

/** `param=macro` pairs as a VAST URL carries them (`w={{width}}&h={{height}}`). */
export function macroQuery(macros: readonly TagMacro[]): string {
  return usable(macros)
    .map((p) => `${p.param}=${p.macro}`)
    .join('&');
}

/** The tenant's macros a player of `environment` fills (the shared rule; the tenant's own parameters stay). */
function macrosFor(macros: readonly TagMacro[], environment: TagEnvironment): TagMacro[] {
  return usable(macros).filter((m) => macroFilledIn(m.param, environment));
}

/** The same query with example values such a player sends; parameters without an example are left out. */
function exampleQuery(macros: readonly TagMacro[], environment: TagEnvironment): string {
  return macros
    .map((m) => [m.param, macroExample(m.param, environment)] as const)
    .filter(([, value]) => value !== '')
    .map(([param, value]) => `${param}=${encodeURIComponent(value)}`)
    .join('&');
}

const withQuery = (url: string, query: string) => (query ? `${url}?${query}` : url);

/** `Page URL` -> `page URL`; an acronym (`OpenRTB device type`) keeps its capitals. */
const inSentence = (text: string) => (/^[A-Z][a-z]*(\s|$)/.test(text) ? text[0].toLowerCase() + text.slice(1) : text);

/** What sets an environment's tag apart: the standard macros that not every environment's players fill. */
function distinctMacros(environment: TagEnvironment): string[] {
  return STANDARD_TAG_MACROS.filter(
    (m) => m.environments.length < ENVIRONMENTS.length && m.environments.includes(environment),
  ).map((m) => inSentence(m.description.replace(/ \([^)]*,[^)]*\)$/, '')));
}

function environmentHint(label: string, environment: TagEnvironment): string {
  const distinct = distinctMacros(environment);
  return `${label} players fill each {{macro}} before calling the tag${distinct.length ? `; besides the common ones it carries the ${distinct.join(', ')}` : ''}.`;
}

/**
 * A VAST channel's tag in each environment: its URL with the macros that environment's players fill
 * (a VAST 2.0 channel: the macros VAST 2 players support) and the example call of each.
 */
export function vastTagVariants(uid: string, vastVersion: unknown, user: TagUser, asked = false): TagVariant[] {
  const url = edgeUrl(user.config.host, vastTagPath(uid));
  const tenantMacros = vastVersion === '2.0' ? user.vast2Params : user.vastParams;
  // a version other than the channel's is asked for in the tag itself
  const pinned = asked && typeof vastVersion === 'string' ? `${VAST_VERSION_PARAM}=${vastVersion}` : '';
  const query = (rest: string) => [pinned, rest].filter(Boolean).join('&');
  return ENVIRONMENTS.map((environment) => {
    const macros = macrosFor(tenantMacros, environment);
    const label = ENVIRONMENT_LABELS.get(environment) ?? environment;
    return {
      key: environment,
      label,
      text: withQuery(url, query(macroQuery(macros))),
      example: withQuery(url, query(exampleQuery(macros, environment))),
      hint: environmentHint(label, environment),
      environment,
    };
  });
}

/** An OpenRTB 2.6 bid request such a caller sends, flagged `test: 1` so that trying it counts nothing. */
export function exampleBidRequest(environment: TagEnvironment, format: unknown): Record<string, unknown> {
  const ex = (param: string) => macroExample(param, environment);
  const video = format !== 'display';
  const imp = video
    ? {
        id: '1',
        video: { mimes: ['video/mp4'], w: Number(ex('w')), h: Number(ex('h')), protocols: [2, 3, 7, 8], plcmt: 1 },
        bidfloor: 0.5,
        bidfloorcur: 'USD',
      }
    : { id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.5, bidfloorcur: 'USD' };
  const where =
    environment === 'web'
      ? { site: { domain: ex('domain'), page: ex('page_url') } }
      : { app: { bundle: ex('app_bundle'), name: ex('app_name'), storeurl: ex('app_store_url') } };
  const device = {
    ua: ex('ua'),
    ip: ex('ip'),
    devicetype: Number(ex('device_type')),
    ...(environment === 'web' ? {} : { ifa: ex('device_id') }),
  };
  return { id: 'test-request-1', test: 1, tmax: 500, cur: ['USD'], imp: [imp], ...where, device };
}

/** A shell command that posts the example request to `url`, the JSON laid out to read (single quotes survive every value here). */
function curlCall(url: string, body: Record<string, unknown>): string {
  return [
    `curl -sS -X POST '${url}' \\`,
    `  -H 'Content-Type: application/json' -H 'x-openrtb-version: 2.6' \\`,
    `  -d '${JSON.stringify(body, null, 2)}'`,
  ].join('\n');
}

/** The JSON body of a `curlCall`, read back (what a test call sends). */
export function curlBody(call: string): unknown {
  const body = /-d '([\s\S]*)'$/.exec(call);
  return body ? JSON.parse(body[1]) : null;
}

/** An OpenRTB endpoint and a test call to it (an RTB channel's, a supplier's). */
function openRtbVariants(
  url: string,
  environment: TagEnvironment,
  format: unknown,
  endpointHint: string,
): TagVariant[] {
  return [
    { key: 'endpoint', label: 'Endpoint', text: url, hint: endpointHint },
    {
      key: 'test',
      label: 'Test call',
      text: curlCall(url, exampleBidRequest(environment, format)),
      hint: `A ${ENVIRONMENT_LABELS.get(environment) ?? environment} bid request to try the endpoint: it is marked test (test: 1), so nothing is counted or billed.`,
    },
  ];
}

/**
 * What a publisher needs to call a saved channel (null before it is saved: the tag needs its uid):
 * - VAST: the tag URL per environment, the channel's own first;
 * - RTB: the OpenRTB endpoint the publisher's SSP posts to, and a test call;
 * - PreBid: the Prebid Server auction endpoint with the channel as the stored request.
 */
export function channelTagPreview(channel: TaggedChannel, user: TagUser): TagPreviewModel | null {
  const uid = channel.uid?.trim();
  if (!uid) return null;
  const environment = isEnvironment(channel.environment) ? channel.environment : 'web';
  switch (channel.integration) {
    case 'RTB':
      return {
        title: 'OpenRTB endpoint',
        variants: openRtbVariants(
          edgeUrl(user.config.host, rtbChannelPath(uid)),
          environment,
          channel.format,
          'OpenRTB 2.6 endpoint: the SSP posts its bid requests here.',
        ),
        defaultKey: 'endpoint',
      };
    case 'PreBid': {
      const endpoint = edgeUrl(user.config.host, PREBID_AUCTION_PATH);
      const ext = JSON.stringify({ prebid: { storedrequest: { id: uid } } });
      return {
        title: 'Prebid Server',
        variants: [
          {
            key: 'server',
            label: 'Prebid Server',
            text: `Endpoint: ${endpoint}\nStored request id: ${uid}\nRequest ext: ${ext}`,
            hint: 'Prebid Server auction endpoint; the request names this channel as its stored request.',
          },
        ],
        defaultKey: 'server',
      };
    }
    default: {
      const current = typeof channel.vastVersion === 'string' ? channel.vastVersion : '4.2';
      const inVersion = (version: string): TagPreviewModel => ({
        title: 'VAST tag',
        variants: vastTagVariants(uid, version, user, version !== current),
        defaultKey: environment,
        note:
          version === current
            ? `Answers in VAST ${version}, the channel's version${version === '2.0' ? ', with the macros VAST 2 players fill' : ''}.`
            : `Asks for VAST ${version} (the channel answers in ${current} otherwise)${version === '2.0' ? ', with the macros VAST 2 players fill' : ''}.`,
        vastVersions: { current, options: VAST_VERSIONS, inVersion },
      });
      return inVersion(current);
    }
  }
}

/** A supplier's bid endpoint (DSP mode) and a test call in the format it sends first. */
export function supplierTagPreview(uid: string, formats: unknown, host: string): TagPreviewModel {
  const first =
    Array.isArray(formats) && formats.includes('video')
      ? 'video'
      : Array.isArray(formats) && formats[0]
        ? formats[0]
        : 'video';
  return {
    title: 'Bid endpoint',
    variants: openRtbVariants(
      edgeUrl(host, supplierBidPath(uid)),
      first === 'video' ? 'ctv' : 'web',
      first,
      'They POST OpenRTB 2.6 bid requests here; the QPS limit and margin below apply to them.',
    ),
    defaultKey: 'endpoint',
  };
}

/** The variant to show: the chosen one if the model still has it, else the model's default. */
export function pickVariant(model: TagPreviewModel, key: string | null): TagVariant {
  return (
    model.variants.find((v) => v.key === key) ??
    model.variants.find((v) => v.key === model.defaultKey) ??
    model.variants[0]
  );
}
