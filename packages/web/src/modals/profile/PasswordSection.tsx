import { useState } from 'react';
import { App, Button, Form, Input, Typography } from 'antd';
import { passwordProblem } from '@adplane/shared';
import { api, ApiError } from '../../api/client.js';
import { useUser } from '../../auth/authContext.js';
import { SignInLog } from '../../components/SignInLog.js';
import { notifySaveError } from '../../errors/notify.js';

interface Values {
  currentPassword: string;
  newPassword: string;
  confirm: string;
}

/**
 * The profile's "Password and sign-ins" tab: change one's own password (POST /api/auth/password, which asks the
 * current one and signs every other session out), and one's sign-in log below it. An admin acting
 * as the account sees the log but cannot change the password.
 */
export function PasswordSection() {
  const user = useUser();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [logKey, setLogKey] = useState(0);
  const impersonating = user.adminId != null;

  const submit = async ({ currentPassword, newPassword }: Values) => {
    setBusy(true);
    try {
      const answer = await api.post<{ sessionsEnded: number }>('/api/auth/password', { currentPassword, newPassword });
      form.resetFields();
      const others = answer.sessionsEnded;
      void message.success(
        `Password changed${others > 0 ? `; ${others} other session${others === 1 ? '' : 's'} signed out` : ''}`,
      );
    } catch (failure) {
      if (failure instanceof ApiError && (failure.field === 'currentPassword' || failure.field === 'newPassword')) {
        form.setFields([{ name: failure.field, errors: [failure.errors[0]?.message ?? failure.message] }]);
      } else {
        notifySaveError(failure);
      }
    } finally {
      setBusy(false);
      setLogKey((k) => k + 1);
    }
  };

  return (
    <section className="profile-password" data-testid="profile-password">
      <Typography.Title level={5}>Password</Typography.Title>
      {impersonating ? (
        <Typography.Paragraph type="secondary">Only the account itself can change its password.</Typography.Paragraph>
      ) : (
        <Form<Values>
          form={form}
          layout="inline"
          requiredMark={false}
          onFinish={(values) => void submit(values)}
          disabled={busy}
        >
          <Form.Item name="currentPassword" rules={[{ required: true, message: 'Enter your current password' }]}>
            <Input.Password
              placeholder="Current password"
              autoComplete="current-password"
              data-testid="password-current"
            />
          </Form.Item>
          <Form.Item
            name="newPassword"
            rules={[
              {
                validator: (_rule, value: string | undefined) => {
                  const problem = value ? passwordProblem(value) : 'is required';
                  return problem ? Promise.reject(new Error(`New password ${problem}`)) : Promise.resolve();
                },
              },
            ]}
          >
            <Input.Password placeholder="New password" autoComplete="new-password" data-testid="password-new" />
          </Form.Item>
          <Form.Item
            name="confirm"
            dependencies={['newPassword']}
            rules={[
              ({ getFieldValue }) => ({
                validator: (_rule, value: string | undefined) =>
                  value === getFieldValue('newPassword')
                    ? Promise.resolve()
                    : Promise.reject(new Error('The two passwords differ')),
              }),
            ]}
          >
            <Input.Password
              placeholder="New password again"
              autoComplete="new-password"
              data-testid="password-confirm"
            />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={busy} data-testid="password-submit">
            Change password
          </Button>
        </Form>
      )}
      <Typography.Title level={5}>Sign-in log</Typography.Title>
      <SignInLog key={logKey} path="/api/auth/signIns" />
    </section>
  );
}
