import { useCallback, useState } from 'react';
import { Alert, Button, Form, Input, Typography } from 'antd';
import { SafetyOutlined } from '@ant-design/icons';
import { type AuthUser, type EnrolledSignIn, type SecondStepPending, type TwoFactorSetup } from '@adplane/shared';
import { api, ApiError } from '../../api/client.js';
import { TwoFactorEnrolment } from '../../components/TwoFactorEnrolment.js';
import { loginErrorMessage } from './loginErrors.js';

interface Props {
  pending: SecondStepPending;
  onSignedIn: (user: AuthUser) => void;
  /** Back to the password: the sign-in in progress expired or the account can no longer sign in. */
  onRestart: (why: string) => void;
}

/** The answer of a second step that means "start again from the password" rather than "wrong code". */
const restartReason = (error: unknown): string | null =>
  error instanceof ApiError && (error.field === 'pendingToken' || error.status === 401 || error.status === 409)
    ? error.field === 'pendingToken'
      ? 'The sign-in took too long: enter your password again'
      : loginErrorMessage(error)
    : null;

/**
 * The second step of a sign-in with two-factor sign-in: the code of the authenticator app or a
 * recovery code (POST /api/auth/login/code); or, when the account's tenant requires two-factor
 * sign-in and it has none yet, the enrolment first (POST /api/auth/login/setup and /confirm), whose
 * last code also signs in. No session exists before this step passes.
 */
export function SecondStep({ pending, onSignedIn, onRestart }: Props) {
  const [form] = Form.useForm<{ code: string }>();
  const [busy, setBusy] = useState(false);
  const [useRecovery, setUseRecovery] = useState(false);
  const [enrolled, setEnrolled] = useState<AuthUser | null>(null);
  const { pendingToken } = pending;

  const begin = useCallback(async () => {
    try {
      return await api.post<TwoFactorSetup>('/api/auth/login/setup', { pendingToken });
    } catch (error) {
      const why = restartReason(error);
      if (why) onRestart(why);
      throw error;
    }
  }, [pendingToken, onRestart]);
  const confirm = useCallback(
    async (code: string) => {
      try {
        const answer = await api.post<EnrolledSignIn>('/api/auth/login/confirm', { pendingToken, code });
        setEnrolled(answer.user);
        return answer.recoveryCodes;
      } catch (error) {
        const why = restartReason(error);
        if (why) onRestart(why);
        throw error;
      }
    },
    [pendingToken, onRestart],
  );

  if (pending.twoFactor === 'enrol') {
    return (
      <div data-testid="login-enrol">
        <Alert
          className="login-alert"
          type="info"
          showIcon
          title="Your account requires two-factor sign-in"
          description="Set it up now to finish signing in."
        />
        <TwoFactorEnrolment
          begin={begin}
          confirm={confirm}
          onDone={() => {
            if (enrolled) onSignedIn(enrolled);
          }}
        />
      </div>
    );
  }

  const submit = async ({ code }: { code: string }) => {
    setBusy(true);
    try {
      onSignedIn(await api.post<AuthUser>('/api/auth/login/code', { pendingToken, code: code.trim() }));
    } catch (error) {
      const why = restartReason(error);
      if (why) onRestart(why);
      else if (error instanceof ApiError && error.field === 'code')
        form.setFields([{ name: 'code', errors: [error.errors[0]?.message ?? error.message] }]);
      else form.setFields([{ name: 'code', errors: [loginErrorMessage(error)] }]);
      setBusy(false);
    }
  };

  return (
    <div data-testid="login-second-step">
      <Typography.Paragraph>
        <SafetyOutlined />{' '}
        {useRecovery
          ? 'Enter one of your recovery codes. Each one works once.'
          : 'Enter the 6-digit code your authenticator app shows.'}
      </Typography.Paragraph>
      <Form<{ code: string }>
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={(values) => void submit(values)}
        disabled={busy}
      >
        <Form.Item
          name="code"
          label={useRecovery ? 'Recovery code' : 'Code'}
          rules={[
            { required: true, whitespace: true, message: useRecovery ? 'Enter a recovery code' : 'Enter the code' },
          ]}
        >
          <Input
            autoFocus
            inputMode={useRecovery ? 'text' : 'numeric'}
            autoComplete="one-time-code"
            placeholder={useRecovery ? 'xxxx-xxxx-xxxx' : '123456'}
            data-testid="login-code"
          />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={busy} data-testid="login-code-submit">
          Sign in
        </Button>
        <Button
          type="link"
          block
          onClick={() => {
            setUseRecovery(!useRecovery);
            form.resetFields();
          }}
          data-testid="login-use-recovery"
        >
          {useRecovery ? 'Use the code of my app' : 'Use a recovery code'}
        </Button>
      </Form>
    </div>
  );
}
