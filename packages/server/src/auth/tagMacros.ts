import { type TagMacro } from '@adplane/shared';

interface StandardMacro extends TagMacro {
  /** Whether a VAST 2 era player can fill it. */
  vast2: boolean;
}

/**
 * Query parameters every VAST tag URL of a tenant carries, with the macro the player or SSP fills in.
 * The console shows them when it builds a tag; the edge reads them back from the request.
 */
export const STANDARD_TAG_MACROS: readonly StandardMacro[] = [
  { param: 'w', macro: '{{width}}', description: 'Player width in pixels', vast2: true },
  { param: 'h', macro: '{{height}}', description: 'Player height in pixels', vast2: true },
  { param: 'cb', macro: '{{cachebuster}}', description: 'Random cache buster', vast2: true },
  { param: 'ip', macro: '{{ip}}', description: 'Viewer IP address', vast2: true },
  { param: 'ua', macro: '{{user_agent}}', description: 'Viewer user agent', vast2: true },
  { param: 'app_bundle', macro: '{{app_bundle}}', description: 'App bundle or store id', vast2: true },
  { param: 'app_name', macro: '{{app_name}}', description: 'App name', vast2: true },
  { param: 'app_store_url', macro: '{{app_store_url}}', description: 'App store URL', vast2: true },
  { param: 'device_id', macro: '{{device_id}}', description: 'Advertising id (IFA)', vast2: true },
  { param: 'us_privacy', macro: '{{us_privacy}}', description: 'CCPA US privacy string', vast2: false },
  { param: 'gdpr', macro: '{{gdpr}}', description: 'GDPR applies (0/1)', vast2: false },
  { param: 'gdpr_consent', macro: '{{gdpr_consent}}', description: 'TCF consent string', vast2: false },
  { param: 'dnt', macro: '{{dnt}}', description: 'Do not track (0/1)', vast2: true },
  { param: 'content_genre', macro: '{{content_genre}}', description: 'Content genre', vast2: false },
  { param: 'domain', macro: '{{domain}}', description: 'Site domain', vast2: true },
  { param: 'page_url', macro: '{{page_url}}', description: 'Page URL', vast2: true },
  { param: 'schain', macro: '{{schain}}', description: 'Supply chain (OpenRTB schain, serialised)', vast2: false },
];

const strip = ({ param, macro, description }: StandardMacro): TagMacro => ({ param, macro, description });

function customMacros(tagParams: readonly string[] | null | undefined): TagMacro[] {
  const standard = new Set(STANDARD_TAG_MACROS.map((m) => m.param));
  return [...new Set(tagParams ?? [])]
    .filter((p) => !standard.has(p))
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
