import { edgeUrl, PREBID_OPTOUT_PATH } from '@adplane/shared';
import { Alert, ConfigProvider, Form, Typography } from 'antd';
import { useUser } from '../../auth/authContext.js';
import { TagPreview } from '../../components/TagPreview.js';
import { SectionTitle } from '../../resources/formParts.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { ampConfig, prebidConfig } from './prebidConfig.js';
import './channels.css';

/**
 * The Prebid.js set-up of a saved channel, beside its tag: what a publisher's page pastes to get
 * bids from this channel through adplane's Prebid Server endpoint (prebidConfig.ts). Web channels
 * and PreBid ones show it; a CTV or in-app channel is called by its player, not by Prebid.js.
 */
export function PrebidSetup({ row }: { row: NonNullable<ResourceFormProps['row']> }) {
  const user = useUser();
  const form = Form.useFormInstance();
  const format = Form.useWatch('format', form) as string | undefined;
  if (row.environment !== 'web' && row.integration !== 'PreBid') return null;
  const text = prebidConfig(row, user.config.host);
  if (!text) return null;
  const amp = ampConfig(row, user.config.host);
  const variants = [
    {
      key: 'pbjs',
      label: 'Prebid.js',
      text,
      hint: 'Paste it after the Prebid.js script; the ad unit code names your slot or player.',
    },
  ];
  if (amp)
    variants.push({
      key: 'amp',
      label: 'AMP',
      text: amp,
      hint: "An AMP page's ad slot: its Real Time Config asks adplane for bids and hands the keys to your ad server's Prebid line items.",
    });
  return (
    // Copyable when the drawer is read-only (an archived channel), as the tag is.
    <ConfigProvider componentDisabled={false}>
      {/* A section of its own, so the drawer's jump links reach it */}
      <SectionTitle>Prebid.js</SectionTitle>
      {format && format !== row.format && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 8 }}
          title={`Save to get the ${format} ad unit; this is the set-up of the saved channel.`}
        />
      )}
      <Typography.Paragraph type="secondary" style={{ marginBottom: 6 }}>
        Header bidding through adplane as a Prebid Server: paste into the page after Prebid.js (built with the
        prebidServerBidAdapter module). The bidder is <Typography.Text code>adplane</Typography.Text>, its only
        parameter the channel.
      </Typography.Paragraph>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 6 }} data-testid="channel-prebid-optout">
        With <Typography.Text code>syncEndpoint</Typography.Text>, Prebid.js gives each browser an adplane id (a cookie
        on adplane&apos;s host, where the browser keeps third-party cookies), so frequency caps count the same viewer
        across pages and sites. No id where the GDPR applies, the viewer opted out of sale, or the browser opted out.
        Link the opt-out page (per browser, kept 400 days) from the site&apos;s privacy policy:{' '}
        <Typography.Text code copyable>
          {edgeUrl(user.config.host, PREBID_OPTOUT_PATH)}
        </Typography.Text>
      </Typography.Paragraph>
      <div data-testid="channel-prebid">
        <TagPreview
          bare
          model={{ title: 'Prebid.js set-up', variants, defaultKey: 'pbjs' }}
          testId="channel-prebid-config"
          copiedMessage="Copied: the Prebid.js set-up is in your clipboard"
        />
      </div>
    </ConfigProvider>
  );
}
