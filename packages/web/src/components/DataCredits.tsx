import { Typography } from 'antd';

/**
 * The credits the geo and datacenter data ask for wherever the console shows results read from them
 * (reports by country, region or no-fill reason, the fill funnel, the postbid report): geoip-lite's
 * GeoLite data by MaxMind, and the datacenter ranges of the pre-bid IVT check, derived from
 * RouteViews, NRO and DB-IP data under CC BY 4.0 (DB-IP asks for a link on such pages).
 */
export function DataCredits() {
  const link = (href: string, text: string) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {text}
    </a>
  );
  return (
    <Typography.Paragraph
      type="secondary"
      className="data-credits"
      style={{ fontSize: 12, marginTop: 12, marginBottom: 0 }}
      data-testid="data-credits"
    >
      Geo: GeoLite data created by MaxMind, available from {link('https://www.maxmind.com', 'maxmind.com')}. IP data:
      RouteViews, NRO, {link('https://db-ip.com', 'DB-IP (db-ip.com)')}, CC BY 4.0.
    </Typography.Paragraph>
  );
}
