import { useState } from 'react';
import { Alert, Button, Card, Form, Input, Typography } from 'antd';
import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Link, useLocation, useNavigate } from 'react-router';
import { type AuthUser, isSecondStep, type SecondStepPending } from '@adplane/shared';
import { useAuth } from '../../auth/authContext.js';
import { userTypeLabel } from '../../layout/userType.js';
import { ForgotPasswordForm } from './ForgotPasswordForm.js';
import { afterLoginPath, loginErrorMessage } from './loginErrors.js';
import { SecondStep } from './SecondStep.js';

interface Credentials {
  username: string;
  password: string;
}

/**
 * Sign-in with user name or e-mail and password, then, for an account with two-factor sign-in, its
 * second step (SecondStep.tsx); afterwards back to where the visitor was going.
 */
export default function LoginPage() {
  const { user, login, completeSignIn } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const target = afterLoginPath((location.state as { from?: unknown } | null)?.from);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [forgot, setForgot] = useState(false);
  const [pending, setPending] = useState<SecondStepPending | null>(null);

  const submit = async ({ username, password }: Credentials) => {
    setError(null);
    setBusy(true);
    try {
      const answer = await login(username.trim(), password);
      if (isSecondStep(answer)) {
        setPending(answer);
        setBusy(false);
        return;
      }
      void navigate(target, { replace: true });
    } catch (failure) {
      setError(loginErrorMessage(failure));
      setBusy(false);
    }
  };

  return (
    <div className="login-page">
      <Card className="login-card" variant="borderless">
        <div className="login-brand">
          <svg className="login-mark" viewBox="0 0 32 32" aria-hidden="true">
            <rect width="32" height="32" rx="7" fill="#1d4ed8" />
            <path
              d="M7 23 L13.5 9 L20 23"
              fill="none"
              stroke="#fff"
              strokeWidth="3"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
            <path d="M10 18 H17" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
            <circle cx="24" cy="10.5" r="3" fill="#7dd3fc" />
          </svg>
          <div>
            <Typography.Title level={3} className="login-title">
              adplane
            </Typography.Title>
            <Typography.Text type="secondary">SSP and DSP console</Typography.Text>
          </div>
        </div>
        {user && (
          <Alert
            className="login-alert"
            type="info"
            showIcon
            data-testid="login-signed-in"
            title={
              <span>
                Signed in as <strong>{user.name}</strong> ({userTypeLabel(user.type)}).{' '}
                {target !== '/'
                  ? 'That page needs another account: sign in with it below, or '
                  : 'Sign in with another account below, or '}
                <Link to="/">go to the Dashboard</Link>.
              </span>
            }
          />
        )}
        {pending && (
          <SecondStep
            pending={pending}
            onSignedIn={(signedIn: AuthUser) => {
              completeSignIn(signedIn);
              void navigate(target, { replace: true });
            }}
            onRestart={(why) => {
              setPending(null);
              setError(why);
            }}
          />
        )}
        {forgot && !pending && <ForgotPasswordForm onBack={() => setForgot(false)} />}
        {!forgot && !pending && error && (
          <Alert className="login-alert" type="error" showIcon title={error} data-testid="login-error" />
        )}
        <Form<Credentials>
          hidden={forgot || pending !== null}
          layout="vertical"
          requiredMark={false}
          onFinish={(values) => void submit(values)}
          disabled={busy}
        >
          <Form.Item
            name="username"
            label="User name or e-mail"
            rules={[{ required: true, whitespace: true, message: 'Enter your user name or e-mail' }]}
          >
            <Input prefix={<UserOutlined />} autoComplete="username" autoFocus data-testid="login-username" />
          </Form.Item>
          <Form.Item name="password" label="Password" rules={[{ required: true, message: 'Enter your password' }]}>
            <Input.Password prefix={<LockOutlined />} autoComplete="current-password" data-testid="login-password" />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={busy} data-testid="login-submit">
            Sign in
          </Button>
          <Button type="link" block onClick={() => setForgot(true)} data-testid="login-forgot">
            Forgot password?
          </Button>
        </Form>
      </Card>
      <Typography.Text className="login-footer">Video and display advertising: SSP, DSP and ad server</Typography.Text>
    </div>
  );
}
