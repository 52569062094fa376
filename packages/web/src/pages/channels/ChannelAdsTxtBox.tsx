import { Alert, Button, ConfigProvider, Form, Input, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import {
  type AdsTxtCheckResult,
  type AdsTxtCheckStatus,
  adsTxtCheckPath,
  adsTxtFileOf,
  type AdsTxtFileName,
  adsTxtLinePath,
  type ChannelAdsTxt,
} from '@adplane/shared';
import { api, ApiError } from '../../api/client.js';
import { useUser } from '../../auth/authContext.js';
import { CopyButton } from '../../components/CopyButton.js';
import { SectionTitle } from '../../resources/formParts.js';
import { adsTxtTexts } from './adsTxtTexts.js';

const RESULT_TYPE: Record<AdsTxtCheckStatus, 'success' | 'warning' | 'error'> = {
  found: 'success',
  relationship_differs: 'warning',
  missing: 'error',
  not_adstxt: 'error',
  unreachable: 'error',
};

const SOURCE: Record<NonNullable<ChannelAdsTxt['seller']>['source'], string> = {
  subpublisher: 'the subpublisher',
  profile: 'your own site (profile sellers.json entry)',
  tenant: 'your account, reselling the site',
};

/**
 * The ads.txt line a saved channel's publisher adds (GET .../adstxt), with a copy button, and a check of
 * a publisher's live ads.txt for it (POST .../adstxt/check) for the users who manage the channel.
 * An app or CTV channel's line goes in the app-ads.txt of the developer's website instead: the file
 * follows the environment in the form it sits in (the line itself does not depend on it), and the
 * check names that file, so what it reads is what the texts say.
 */
export function ChannelAdsTxtBox({ channelId }: { channelId: number }) {
  const user = useUser();
  const form = Form.useFormInstance();
  const file: AdsTxtFileName = adsTxtFileOf(Form.useWatch('environment', { form, preserve: true }));
  const texts = adsTxtTexts(file);
  const [info, setInfo] = useState<ChannelAdsTxt | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [domain, setDomain] = useState('');
  const [checking, setChecking] = useState(false);
  /** The last answer, with the file it is of (the environment may have changed since). */
  const [checked, setChecked] = useState<{ file: AdsTxtFileName; result: AdsTxtCheckResult } | null>(null);
  const result = checked?.file === file ? checked.result : null;
  const [checkError, setCheckError] = useState<string | null>(null);
  const canCheck = user.type !== 'sub' && user.type !== 'adv';

  useEffect(() => {
    let active = true;
    api
      .get<ChannelAdsTxt>(adsTxtLinePath(channelId))
      .then((r) => active && setInfo(r))
      .catch((error: unknown) => active && setLoadError(error instanceof Error ? error.message : String(error)));
    return () => {
      active = false;
    };
  }, [channelId]);

  const check = async () => {
    setChecking(true);
    setChecked(null);
    setCheckError(null);
    try {
      setChecked({ file, result: await api.post<AdsTxtCheckResult>(adsTxtCheckPath(channelId), { domain, file }) });
    } catch (error) {
      setCheckError(error instanceof ApiError ? error.message.replace(/^domain: /, '') : String(error));
    } finally {
      setChecking(false);
    }
  };

  return (
    // Readable and checkable when the drawer is read-only (an archived channel).
    <ConfigProvider componentDisabled={false}>
      {/* A section of the form like Basics or Tag: the jump links list it. */}
      <SectionTitle>{texts.title}</SectionTitle>
      {loadError && <Alert type="error" showIcon title={`${texts.loadError}: ${loadError}`} />}
      {info && (
        <div className="channel-adstxt" data-testid="channel-adstxt">
          <Typography.Paragraph type="secondary" style={{ marginBottom: 6 }}>
            {texts.intro}: seller id of {info.seller ? SOURCE[info.seller.source] : 'this channel'}, as{' '}
            <Typography.Link href={info.sellersJsonUrl} target="_blank" rel="noreferrer">
              sellers.json
            </Typography.Link>{' '}
            lists it.
          </Typography.Paragraph>
          {info.line && (
            <div className="channel-tag">
              <pre data-testid="channel-adstxt-line">{info.line}</pre>
              <CopyButton
                text={info.line}
                copiedMessage="Copied: the line is in your clipboard"
                testId="channel-adstxt-copy"
              />
            </div>
          )}
          {info.warnings.map((w) => (
            <Alert key={w} type="warning" showIcon style={{ marginTop: 8 }} title={w} />
          ))}
          {canCheck && info.line && (
            <div style={{ marginTop: 12 }}>
              <Typography.Text strong>{texts.checkTitle}</Typography.Text>
              <Space.Compact style={{ width: '100%', marginTop: 6 }}>
                <Input
                  placeholder={texts.placeholder}
                  value={domain}
                  onChange={(e) => setDomain(e.target.value)}
                  onPressEnter={() => domain.trim() && void check()}
                  data-testid="channel-adstxt-domain"
                  aria-label={texts.fieldLabel}
                />
                <Button
                  type="primary"
                  loading={checking}
                  disabled={!domain.trim()}
                  onClick={() => void check()}
                  data-testid="channel-adstxt-check"
                >
                  Check
                </Button>
              </Space.Compact>
              {texts.hint && (
                <Typography.Text
                  type="secondary"
                  style={{ display: 'block', marginTop: 4 }}
                  data-testid="channel-adstxt-hint"
                >
                  {texts.hint}
                </Typography.Text>
              )}
              {checkError && (
                <Alert
                  type="error"
                  showIcon
                  style={{ marginTop: 8 }}
                  title={checkError}
                  data-testid="channel-adstxt-result"
                />
              )}
              {result && (
                <Alert
                  type={RESULT_TYPE[result.status]}
                  showIcon
                  style={{ marginTop: 8 }}
                  title={texts.results[result.status]}
                  data-testid="channel-adstxt-result"
                  description={
                    <>
                      <div>{result.message}</div>
                      {result.url && <Typography.Text type="secondary">Read from {result.url}</Typography.Text>}
                      {result.matches.map((m) => (
                        <pre key={m.line} className="channel-adstxt-match">
                          {`line ${m.line}: ${m.text}`}
                        </pre>
                      ))}
                    </>
                  }
                />
              )}
            </div>
          )}
        </div>
      )}
    </ConfigProvider>
  );
}
