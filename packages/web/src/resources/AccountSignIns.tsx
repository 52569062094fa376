import { useCallback, useEffect, useState } from 'react';
import { App, Button, Collapse, Popconfirm, Space, Tag, Typography } from 'antd';
import { type ResourceDef, type TwoFactorStatus } from '@adplane/shared';
import { api } from '../api/client.js';
import { useUser } from '../auth/authContext.js';
import { SignInLog } from '../components/SignInLog.js';
import { notifyLoadError, notifySaveError } from '../errors/notify.js';

const ACCOUNT_KINDS: ReadonlySet<string> = new Set(['demands', 'managers', 'subs', 'advs']);

/**
 * An admin's view of an account's sign-in in the account's drawer: its sign-in log (GET
 * /api/users/:id/signIns) and its two-factor sign-in, with the reset for a lost phone (POST
 * /api/users/:id/twoFactor/reset); nothing for anyone else.
 */
export function AccountSignIns({ def, id }: { def: ResourceDef; id: number }) {
  const user = useUser();
  if (user.type !== 'admin' || !ACCOUNT_KINDS.has(def.kind)) return null;
  return (
    <Collapse
      size="small"
      style={{ marginTop: 16 }}
      data-testid="account-sign-ins"
      destroyOnHidden
      items={[
        { key: 'signIns', label: 'Sign-in log', children: <SignInLog path={`/api/users/${id}/signIns`} /> },
        { key: 'twoFactor', label: 'Two-factor sign-in', children: <AccountTwoFactor id={id} /> },
      ]}
    />
  );
}

function AccountTwoFactor({ id }: { id: number }) {
  const { message } = App.useApp();
  const [status, setStatus] = useState<TwoFactorStatus | null>(null);
  const load = useCallback(() => {
    api
      .get<TwoFactorStatus>(`/api/users/${id}/twoFactor`)
      .then(setStatus)
      .catch((error: unknown) => notifyLoadError(error));
  }, [id]);
  useEffect(load, [load]);
  if (!status) return null;
  const reset = async () => {
    try {
      await api.post(`/api/users/${id}/twoFactor/reset`, {});
      void message.success('Two-factor sign-in reset');
      load();
    } catch (error) {
      notifySaveError(error);
    }
  };
  return (
    <Space direction="vertical" data-testid="account-two-factor">
      <Space>
        {status.enabled ? <Tag color="green">On</Tag> : <Tag>Off</Tag>}
        {status.required && <Typography.Text type="secondary">Required by the demand account</Typography.Text>}
        {status.enabled && (
          <Typography.Text type="secondary">{status.recoveryCodesLeft} recovery codes left</Typography.Text>
        )}
      </Space>
      {status.enabled && (
        <Popconfirm
          title="Reset this account's two-factor sign-in?"
          description="For a lost phone: the password alone signs in again, or the account enrols anew if its demand account requires it."
          okText="Reset"
          onConfirm={() => void reset()}
        >
          <Button size="small" data-testid="account-two-factor-reset">
            Reset two-factor sign-in
          </Button>
        </Popconfirm>
      )}
    </Space>
  );
}
