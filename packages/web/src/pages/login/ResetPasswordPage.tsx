import { useState } from 'react';
import { Alert, Button, Card, Form, Input, Typography } from 'antd';
import { LockOutlined } from '@ant-design/icons';
import { Link, useSearchParams } from 'react-router';
import { passwordProblem } from '@adplane/shared';
import { api, ApiError } from '../../api/client.js';
import { errorText } from '../../errors/messages.js';

interface Values {
  password: string;
  confirm: string;
}

/**
 * /reset-password?token=...: the page an e-mailed reset link opens. Sets a new password with the
 * link's token (POST /api/auth/resetPassword), which ends every session of the account; then the
 * visitor signs in with it.
 */
export default function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async ({ password }: Values) => {
    setError(null);
    setBusy(true);
    try {
      await api.post('/api/auth/resetPassword', { token, password });
      setDone(true);
    } catch (failure) {
      if (failure instanceof ApiError && failure.field === 'password') {
        form.setFields([{ name: 'password', errors: [failure.errors[0]?.message ?? failure.message] }]);
      } else {
        setError(failure instanceof ApiError && failure.field === 'token' ? TOKEN_REFUSED : errorText(failure));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login-page">
      <Card className="login-card" variant="borderless" data-testid="reset-password">
        <Typography.Title level={4}>Set a new password</Typography.Title>
        {done ? (
          <Alert
            className="login-alert"
            type="success"
            showIcon
            data-testid="reset-done"
            title={
              <span>
                Your password is set, and every session of your account has ended.{' '}
                <Link to="/login" data-testid="reset-sign-in">
                  Sign in
                </Link>{' '}
                with it.
              </span>
            }
          />
        ) : !token ? (
          <Alert className="login-alert" type="error" showIcon title={TOKEN_REFUSED} data-testid="reset-error" />
        ) : (
          <>
            {error && <Alert className="login-alert" type="error" showIcon title={error} data-testid="reset-error" />}
            <Form<Values>
              form={form}
              layout="vertical"
              requiredMark={false}
              onFinish={(values) => void submit(values)}
              disabled={busy}
            >
              <Form.Item
                name="password"
                label="New password"
                rules={[
                  {
                    validator: (_rule, value: string | undefined) => {
                      const problem = value ? passwordProblem(value) : 'is required';
                      return problem ? Promise.reject(new Error(`Password ${problem}`)) : Promise.resolve();
                    },
                  },
                ]}
              >
                <Input.Password
                  prefix={<LockOutlined />}
                  autoComplete="new-password"
                  data-testid="reset-password-new"
                />
              </Form.Item>
              <Form.Item
                name="confirm"
                label="New password again"
                dependencies={['password']}
                rules={[
                  ({ getFieldValue }) => ({
                    validator: (_rule, value: string | undefined) =>
                      value === getFieldValue('password')
                        ? Promise.resolve()
                        : Promise.reject(new Error('The two passwords differ')),
                  }),
                ]}
              >
                <Input.Password
                  prefix={<LockOutlined />}
                  autoComplete="new-password"
                  data-testid="reset-password-confirm"
                />
              </Form.Item>
              <Button type="primary" htmlType="submit" block loading={busy} data-testid="reset-submit">
                Set password
              </Button>
            </Form>
          </>
        )}
        <div style={{ marginTop: 12, textAlign: 'center' }}>
          <Link to="/login">Back to sign-in</Link>
        </div>
      </Card>
    </div>
  );
}

const TOKEN_REFUSED =
  'This link is not valid, was used already or has expired: ask for a new one from the sign-in page.';
