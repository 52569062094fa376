import { useEffect, useState } from 'react';
import { Alert, Button, Form, Input, Typography } from 'antd';
import { MailOutlined } from '@ant-design/icons';
import { api } from '../../api/client.js';
import { errorText } from '../../errors/messages.js';

/**
 * "Forgot password?": asks for the account's e-mail address (or user name) and posts it to
 * /api/auth/forgotPassword. The server's answer is the same whether or not an account has the
 * address, and so is what this form shows. Says up front when the server has no mail.
 */
export function ForgotPasswordForm({ onBack }: { onBack: () => void }) {
  const [mailOn, setMailOn] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let active = true;
    api
      .get<{ mail: boolean }>('/api/auth/passwordReset')
      .then((answer) => active && setMailOn(answer.mail))
      .catch(() => active && setMailOn(null));
    return () => {
      active = false;
    };
  }, []);

  const submit = async ({ login }: { login: string }) => {
    setError(null);
    setBusy(true);
    try {
      const answer = await api.post<{ message: string }>('/api/auth/forgotPassword', { login: login.trim() });
      setDone(answer.message);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div data-testid="forgot-password">
      <Typography.Title level={5}>Set a new password</Typography.Title>
      {mailOn === false && (
        <Alert
          className="login-alert"
          type="warning"
          showIcon
          data-testid="forgot-mail-off"
          title="Mail is off on this server: an administrator can set a new password for you."
        />
      )}
      {done ? (
        <Alert className="login-alert" type="success" showIcon title={done} data-testid="forgot-sent" />
      ) : (
        <>
          {error && <Alert className="login-alert" type="error" showIcon title={error} data-testid="forgot-error" />}
          <Typography.Paragraph type="secondary">
            Enter your account&apos;s e-mail address or user name: we mail a link to set a new password.
          </Typography.Paragraph>
          <Form<{ login: string }>
            layout="vertical"
            requiredMark={false}
            onFinish={(values) => void submit(values)}
            disabled={busy || mailOn === false}
          >
            <Form.Item
              name="login"
              label="E-mail or user name"
              rules={[{ required: true, whitespace: true, message: 'Enter your e-mail address or user name' }]}
            >
              <Input prefix={<MailOutlined />} autoComplete="email" autoFocus data-testid="forgot-login" />
            </Form.Item>
            <Button type="primary" htmlType="submit" block loading={busy} data-testid="forgot-submit">
              Mail me a link
            </Button>
          </Form>
        </>
      )}
      <Button type="link" block onClick={onBack} data-testid="forgot-back">
        Back to sign-in
      </Button>
    </div>
  );
}
