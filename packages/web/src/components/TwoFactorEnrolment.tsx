import { useEffect, useState } from 'react';
import { Alert, Button, Form, Input, Space, Spin, Typography } from 'antd';
import QRCode from 'qrcode';
import { type TwoFactorSetup } from '@adplane/shared';
import { ApiError } from '../api/client.js';
import { CopyButton } from './CopyButton.js';
import './twoFactor.css';

interface EnrolmentProps {
  /** Asks the server for a new secret (POST /api/auth/twoFactor/setup, or /api/auth/login/setup at sign-in). */
  begin: () => Promise<TwoFactorSetup>;
  /** Confirms the first code; resolves with the recovery codes to show once. */
  confirm: (code: string) => Promise<string[]>;
  /** Called with the recovery codes once the user said they kept them. */
  onDone: (recoveryCodes: string[]) => void;
  onCancel?: () => void;
}

/**
 * Enrolment in two-factor sign-in: the new secret as a QR code to scan (its otpauth:// URI) and as
 * text to type, then the first code of the app, which turns it on; then the recovery codes, shown
 * this once.
 */
export function TwoFactorEnrolment({ begin, confirm, onDone, onCancel }: EnrolmentProps) {
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [form] = Form.useForm<{ code: string }>();

  useEffect(() => {
    let active = true;
    begin()
      .then(async (made) => {
        const image = await QRCode.toDataURL(made.uri, { margin: 1, width: 200 });
        if (!active) return;
        setSetup(made);
        setQr(image);
      })
      .catch((error: unknown) => {
        if (active) setFailure(error instanceof Error ? error.message : 'Two-factor sign-in could not be set up');
      });
    return () => {
      active = false;
    };
  }, [begin]);

  const submit = async ({ code }: { code: string }) => {
    setBusy(true);
    try {
      setCodes(await confirm(code.trim()));
    } catch (error) {
      const text =
        error instanceof ApiError ? (error.errors[0]?.message ?? error.message) : 'The code was not accepted';
      form.setFields([{ name: 'code', errors: [text] }]);
    } finally {
      setBusy(false);
    }
  };

  if (codes) return <RecoveryCodesView codes={codes} onDone={() => onDone(codes)} />;
  if (failure) return <Alert type="error" showIcon title={failure} data-testid="two-factor-setup-error" />;
  if (!setup || !qr) return <Spin />;
  return (
    <div className="two-factor-enrol" data-testid="two-factor-enrol">
      <Typography.Paragraph>
        Scan this code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Authy…), or
        type the key into it. Then enter the 6-digit code the app shows.
      </Typography.Paragraph>
      <div className="two-factor-enrol-body">
        <img src={qr} alt="QR code of the two-factor secret" width={200} height={200} data-testid="two-factor-qr" />
        <div className="two-factor-enrol-steps">
          <Typography.Text type="secondary">Key</Typography.Text>
          <Space align="center" wrap>
            <Typography.Text code className="two-factor-secret" data-testid="two-factor-secret">
              {setup.secret}
            </Typography.Text>
            <CopyButton text={setup.secret} testId="two-factor-secret-copy" />
          </Space>
          <Form<{ code: string }>
            form={form}
            layout="vertical"
            requiredMark={false}
            onFinish={(values) => void submit(values)}
            disabled={busy}
            className="two-factor-code-form"
          >
            <Form.Item
              name="code"
              label="Code from the app"
              rules={[
                { required: true, pattern: /^\s*\d{3}\s?\d{3}\s*$/, message: 'Enter the 6 digits the app shows' },
              ]}
            >
              <Input
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={7}
                placeholder="123456"
                data-testid="two-factor-code"
              />
            </Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" loading={busy} data-testid="two-factor-confirm">
                Turn on
              </Button>
              {onCancel && (
                <Button onClick={onCancel} data-testid="two-factor-cancel">
                  Cancel
                </Button>
              )}
            </Space>
          </Form>
        </div>
      </div>
    </div>
  );
}

/** Recovery codes, shown once: each signs in once in place of a code when the app is not at hand. */
export function RecoveryCodesView({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div className="two-factor-codes" data-testid="two-factor-recovery-codes">
      <Alert
        type="warning"
        showIcon
        title="Keep these recovery codes somewhere safe"
        description="Each one signs you in once when your authenticator app is not at hand. They are shown only now."
      />
      <ol className="two-factor-code-list">
        {codes.map((code) => (
          <li key={code}>
            <Typography.Text code>{code}</Typography.Text>
          </li>
        ))}
      </ol>
      <Space>
        <CopyButton
          text={codes.join('\n')}
          copiedMessage="The recovery codes are in your clipboard"
          testId="two-factor-codes-copy"
        />
        <Button type="primary" onClick={onDone} data-testid="two-factor-codes-done">
          I have kept them
        </Button>
      </Space>
    </div>
  );
}
