import type { Edition } from '@adplane/shared';

export interface EditionServer {
  edition: Edition;
  port: number;
  url: string;
  encrypt: boolean;
  landing: string;
  insightHub: string;
}

const base = Number(process.env.E2E_PORT_BASE ?? 18180);

function server(edition: Edition, offset: number, encrypt: boolean, landing = '', insightHub = ''): EditionServer {
  const port = base + offset;
  return { edition, port, url: `http://127.0.0.1:${port}`, encrypt, landing, insightHub };
}

export const EDITION_SERVERS: Record<Edition, EditionServer> = {
  default: server('default', 0, false),
  V2V: server('V2V', 1, true, 'https://example.com/', 'https://insights.example.com/'),
  CTVMediaV2V: server('CTVMediaV2V', 2, false),
};

export const DEMO_PASSWORD = 'demo';
