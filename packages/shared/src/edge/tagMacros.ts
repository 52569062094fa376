import { type TagMacro } from '../schemas/auth.js';
import { type ENVIRONMENTS } from '../entities/common.js';

/** Where a VAST tag is played: a connected TV app, a mobile app, a web page. */
export type TagEnvironment = (typeof ENVIRONMENTS)[number];

/**
 * An ad break's limits, on every entry point (a VAST tag's `pod_max_ads` and `pod_max_dur`, an
 * OpenRTB dynamic pod's `maxseq`, "Test this tag"): the most ads one break holds, and the longest
 * break in seconds (a longer `pod_max_dur` is not read).
 */
export const MAX_POD_ADS = 10;
export const MAX_POD_SECONDS = 7200;

export interface StandardTagMacro extends TagMacro {
  /** Whether a VAST 2 era player can fill it. */
  vast2: boolean;
  /** The environments whose players (or their ad-insertion servers) know the value and fill it. */
  environments: readonly TagEnvironment[];
  /**
   * A value such a caller sends, per environment, for the example calls of a tag preview (also where
   * the environment's players do not fill the macro: a browser still has a user agent).
   */
  example: string | Readonly<Partial<Record<TagEnvironment, string>>>;
}

const ALL: readonly TagEnvironment[] = ['ctv', 'app', 'web'];
const APPS: readonly TagEnvironment[] = ['ctv', 'app'];
/** Connected TV: usually called server to server (ad insertion), with the device's facts passed on. */
const CTV: readonly TagEnvironment[] = ['ctv'];

/**
 * Query parameters every VAST tag URL of a tenant carries, with the macro the player or SSP fills in:
 * one list for the console's tag builders and the server's `vastParams`; the edge reads them back
 * (packages/server edge/request/macros.ts). A web page's or an app's player calls the tag from the
 * viewer's device, so the edge reads the IP and user agent from the connection; a CTV tag is usually
 * called server to server (ad insertion), so it carries them, with the device type and the content.
 * Apps and CTV apps name their app (bundle, store URL) and advertising id; web pages their page.
 */
export const STANDARD_TAG_MACROS: readonly StandardTagMacro[] = [
  {
    param: 'w',
    macro: '{{width}}',
    description: 'Player width in pixels',
    vast2: true,
    environments: ALL,
    example: { ctv: '1920', app: '640', web: '640' },
  },
  {
    param: 'h',
    macro: '{{height}}',
    description: 'Player height in pixels',
    vast2: true,
    environments: ALL,
    example: { ctv: '1080', app: '360', web: '360' },
  },
  {
    param: 'cb',
    macro: '{{cachebuster}}',
    description: 'Random cache buster',
    vast2: true,
    environments: ALL,
    example: '8675309',
  },
  {
    param: 'ip',
    macro: '{{ip}}',
    description: 'Viewer IP address',
    vast2: true,
    environments: CTV,
    example: '203.0.113.7',
  },
  {
    param: 'ua',
    macro: '{{user_agent}}',
    description: 'Viewer user agent',
    vast2: true,
    environments: CTV,
    example: {
      ctv: 'Roku/DVP-12.0 (12.0.0.4182-88)',
      app: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
      web: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
    },
  },
  {
    param: 'app_bundle',
    macro: '{{app_bundle}}',
    description: 'App bundle or store id',
    vast2: true,
    environments: APPS,
    example: { ctv: 'com.example.tv', app: 'com.example.news' },
  },
  {
    param: 'app_name',
    macro: '{{app_name}}',
    description: 'App name',
    vast2: true,
    environments: APPS,
    example: { ctv: 'Example TV', app: 'Example News' },
  },
  {
    param: 'app_store_url',
    macro: '{{app_store_url}}',
    description: 'App store URL',
    vast2: true,
    environments: APPS,
    example: {
      ctv: 'https://channelstore.roku.com/details/12345',
      app: 'https://play.google.com/store/apps/details?id=com.example.news',
    },
  },
  {
    param: 'device_id',
    macro: '{{device_id}}',
    description: 'Advertising id (IFA)',
    vast2: true,
    environments: APPS,
    example: '6d92078a-8246-4ba4-ae5b-76104861e7dc',
  },
  {
    param: 'device_type',
    macro: '{{device_type}}',
    description: 'OpenRTB device type (3 connected TV, 4 phone, 5 tablet, 7 set-top box)',
    vast2: true,
    environments: CTV,
    example: { ctv: '3', app: '4', web: '2' },
  },
  {
    param: 'us_privacy',
    macro: '{{us_privacy}}',
    description: 'CCPA US privacy string',
    vast2: false,
    environments: ALL,
    example: '1YNN',
  },
  {
    param: 'gdpr',
    macro: '{{gdpr}}',
    description: 'GDPR applies (0/1)',
    vast2: false,
    environments: ALL,
    example: '0',
  },
  {
    param: 'gdpr_consent',
    macro: '{{gdpr_consent}}',
    description: 'TCF consent string',
    vast2: false,
    environments: ALL,
    example: '',
  },
  { param: 'dnt', macro: '{{dnt}}', description: 'Do not track (0/1)', vast2: true, environments: ALL, example: '0' },
  {
    param: 'content_genre',
    macro: '{{content_genre}}',
    description: 'Content genre',
    vast2: false,
    environments: CTV,
    example: 'News',
  },
  // an ad break (pods came with VAST 3): the server-side ad insertion asks for its ads in one call
  {
    param: 'pod_max_ads',
    macro: '{{pod_max_ads}}',
    description: 'Most ads in the ad break (pod)',
    vast2: false,
    environments: CTV,
    example: '4',
  },
  {
    param: 'pod_max_dur',
    macro: '{{pod_max_dur}}',
    description: 'Length of the ad break in seconds',
    vast2: false,
    environments: CTV,
    example: '120',
  },
  {
    param: 'domain',
    macro: '{{domain}}',
    description: 'Site domain',
    vast2: true,
    environments: ['web'],
    example: 'example.com',
  },
  {
    param: 'page_url',
    macro: '{{page_url}}',
    description: 'Page URL',
    vast2: true,
    environments: ['web'],
    example: 'https://example.com/watch/42',
  },
  {
    param: 'schain',
    macro: '{{schain}}',
    description: 'Supply chain (OpenRTB schain, serialised)',
    vast2: false,
    environments: ALL,
    example: '',
  },
];

const STANDARD_BY_PARAM = new Map(STANDARD_TAG_MACROS.map((m) => [m.param, m]));

const strip = ({ param, macro, description }: StandardTagMacro): TagMacro => ({ param, macro, description });

function customMacros(tagParams: readonly string[] | null | undefined): TagMacro[] {
  return [...new Set(tagParams ?? [])]
    .filter((p) => !STANDARD_BY_PARAM.has(p))
    .map((param) => ({ param, macro: `{{${param}}}`, description: 'Custom tag parameter' }));
}

/** Macros of a VAST 3/4 tag: the standard list, then the tenant's custom tag parameters. */
export function vastMacros(tagParams: readonly string[] | null | undefined): TagMacro[] {
  return [...STANDARD_TAG_MACROS.map(strip), ...customMacros(tagParams)];
}

/** Macros of a VAST 2 tag: what such players support, then the custom tag parameters. */
export function vast2Macros(tagParams: readonly string[] | null | undefined): TagMacro[] {
  return [...STANDARD_TAG_MACROS.filter((m) => m.vast2).map(strip), ...customMacros(tagParams)];
}

/**
 * Whether a player of `environment` fills this query parameter: the standard rule above, and yes for
 * the tenant's own tag parameters (the tenant added them for its players, whatever they are).
 */
export function macroFilledIn(param: string, environment: TagEnvironment): boolean {
  const standard = STANDARD_BY_PARAM.get(param);
  return standard ? standard.environments.includes(environment) : true;
}

/** The example value a player of that environment sends for the parameter ('' when it has none to show). */
export function macroExample(param: string, environment: TagEnvironment): string {
  const example = STANDARD_BY_PARAM.get(param)?.example ?? '';
  return typeof example === 'string' ? example : (example[environment] ?? '');
}
