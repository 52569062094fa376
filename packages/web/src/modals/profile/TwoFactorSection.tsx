import { useCallback, useEffect, useState } from 'react';
import { Alert, App, Button, Descriptions, Form, Input, Modal, Space, Spin, Tag, Typography } from 'antd';
import { type RecoveryCodes, type TwoFactorSetup, type TwoFactorStatus } from '@adplane/shared';
import { api, ApiError } from '../../api/client.js';
import { useUser } from '../../auth/authContext.js';
import { RecoveryCodesView, TwoFactorEnrolment } from '../../components/TwoFactorEnrolment.js';
import { notifyLoadError, notifySaveError } from '../../errors/notify.js';
import { useClock } from '../../format/clock.js';

const STATUS_PATH = '/api/auth/twoFactor';

type PasswordAction = 'disable' | 'recoveryCodes';

/**
 * The profile's two-factor sign-in tab: its state, enrolment (QR code and key, then the first code),
 * new recovery codes and turning it off (each asks the password again). Off cannot be chosen when the
 * account's tenant requires it. An admin acting as the account sees the state only.
 */
export function TwoFactorSection() {
  const user = useUser();
  const { message } = App.useApp();
  const clock = useClock();
  const [status, setStatus] = useState<TwoFactorStatus | null>(null);
  const [enrolling, setEnrolling] = useState(false);
  const [asking, setAsking] = useState<PasswordAction | null>(null);
  const [freshCodes, setFreshCodes] = useState<string[] | null>(null);
  const impersonating = user.adminId != null;

  const load = useCallback(() => {
    api
      .get<TwoFactorStatus>(STATUS_PATH)
      .then(setStatus)
      .catch((error: unknown) => notifyLoadError(error));
  }, []);
  useEffect(load, [load]);

  const begin = useCallback(() => api.post<TwoFactorSetup>(`${STATUS_PATH}/setup`, {}), []);
  const confirm = useCallback(
    async (code: string) => (await api.post<RecoveryCodes>(`${STATUS_PATH}/confirm`, { code })).recoveryCodes,
    [],
  );

  if (!status) return <Spin />;
  if (freshCodes) {
    return (
      <RecoveryCodesView
        codes={freshCodes}
        onDone={() => {
          setFreshCodes(null);
          load();
        }}
      />
    );
  }
  if (enrolling) {
    return (
      <TwoFactorEnrolment
        begin={begin}
        confirm={confirm}
        onCancel={() => setEnrolling(false)}
        onDone={() => {
          setEnrolling(false);
          void message.success('Two-factor sign-in is on');
          load();
        }}
      />
    );
  }

  return (
    <section className="profile-two-factor" data-testid="profile-two-factor">
      <Typography.Paragraph type="secondary">
        With two-factor sign-in, signing in asks for a code of an authenticator app on your phone after your password,
        so a stolen password alone does not open your account. API keys are not affected.
      </Typography.Paragraph>
      {status.required && (
        <Alert
          type="info"
          showIcon
          className="profile-two-factor-required"
          title="Your account requires two-factor sign-in: it cannot be turned off."
        />
      )}
      <Descriptions
        column={1}
        size="small"
        items={[
          {
            key: 'state',
            label: 'Two-factor sign-in',
            children: status.enabled ? (
              <Tag color="green" data-testid="two-factor-state">
                On since {clock(status.enabledAt)}
              </Tag>
            ) : (
              <Tag data-testid="two-factor-state">Off</Tag>
            ),
          },
          ...(status.enabled
            ? [{ key: 'codes', label: 'Recovery codes left', children: String(status.recoveryCodesLeft) }]
            : []),
        ]}
      />
      {impersonating ? (
        <Typography.Paragraph type="secondary">
          Only the account itself can change how it signs in.
        </Typography.Paragraph>
      ) : status.enabled ? (
        <Space wrap>
          <Button onClick={() => setAsking('recoveryCodes')} data-testid="two-factor-new-codes">
            New recovery codes
          </Button>
          {!status.required && (
            <Button danger onClick={() => setAsking('disable')} data-testid="two-factor-disable">
              Turn off
            </Button>
          )}
        </Space>
      ) : (
        <Button type="primary" onClick={() => setEnrolling(true)} data-testid="two-factor-start">
          Set up two-factor sign-in
        </Button>
      )}
      <PasswordPrompt
        action={asking}
        onClose={() => setAsking(null)}
        onDone={(codes) => {
          setAsking(null);
          if (codes) setFreshCodes(codes);
          else void message.success('Two-factor sign-in is off');
          load();
        }}
      />
    </section>
  );
}

/** Asks the password before turning two-factor sign-in off or making new recovery codes. */
function PasswordPrompt({
  action,
  onClose,
  onDone,
}: {
  action: PasswordAction | null;
  onClose: () => void;
  onDone: (codes: string[] | null) => void;
}) {
  const [form] = Form.useForm<{ password: string }>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    const { password } = await form.validateFields();
    setBusy(true);
    try {
      if (action === 'disable') {
        await api.post(`${STATUS_PATH}/disable`, { password });
        onDone(null);
      } else {
        onDone((await api.post<RecoveryCodes>(`${STATUS_PATH}/recoveryCodes`, { password })).recoveryCodes);
      }
      form.resetFields();
    } catch (error) {
      if (error instanceof ApiError && error.field === 'password') {
        form.setFields([{ name: 'password', errors: [error.errors[0]?.message ?? error.message] }]);
      } else {
        notifySaveError(error);
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open={action !== null}
      title={action === 'disable' ? 'Turn off two-factor sign-in' : 'New recovery codes'}
      okText={action === 'disable' ? 'Turn off' : 'Make new codes'}
      okButtonProps={{ danger: action === 'disable', loading: busy, ...{ 'data-testid': 'two-factor-password-ok' } }}
      onOk={() => void submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Typography.Paragraph>
        {action === 'disable'
          ? 'Signing in will ask for your password only.'
          : 'Your current recovery codes stop working.'}{' '}
        Enter your password to go on.
      </Typography.Paragraph>
      <Form form={form} layout="vertical" requiredMark={false} onFinish={() => void submit()}>
        <Form.Item name="password" label="Password" rules={[{ required: true, message: 'Enter your password' }]}>
          <Input.Password autoComplete="current-password" data-testid="two-factor-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
