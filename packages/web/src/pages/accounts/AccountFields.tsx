import { Col, Form, Input, Row, Switch } from 'antd';
import { passwordProblem, type ResourceKind } from '@adplane/shared';
import { useHelpLabel } from '../../resources/fields.js';
import { LimitedInput, lengthRule, NAME_MAX } from '../../resources/formParts.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { statusSwitch } from './formParts.js';

/**
 * The sign-in fields every account shares (subpublishers, advertisers, managers, demand accounts):
 * name, username, e-mail, password and status, with the company name where the kind has one. The
 * password is required for a new account; on an existing one an empty password keeps the old one.
 */
export function AccountFields({
  kind,
  row,
  company = true,
  signInLocked = false,
}: {
  kind: ResourceKind;
  row: ResourceRow | null;
  company?: boolean;
  /** Status, user name, e-mail and password greyed out (a non-super admin on a demand account: shared adminRights.ts). */
  signInLocked?: boolean;
}) {
  const label = useHelpLabel(kind);
  return (
    <Row gutter={16}>
      <Col span={18}>
        <Form.Item
          name="name"
          label={label('name', 'Name')}
          rules={[{ required: true, whitespace: true, message: 'Enter a name' }, lengthRule(NAME_MAX)]}
        >
          <LimitedInput max={NAME_MAX} data-testid="account-name" />
        </Form.Item>
      </Col>
      <Col span={6}>
        <Form.Item
          name="status"
          label={label('status', 'Active')}
          extra="Paused accounts cannot sign in"
          {...statusSwitch}
        >
          <Switch disabled={signInLocked} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          name="username"
          label={label('username', 'Username')}
          rules={[
            { required: true, whitespace: true, message: 'Enter a username' },
            { min: 3, max: 64, message: '3 to 64 characters' },
            {
              pattern: /^[A-Za-z0-9._-]+$/,
              message: 'Letters, digits and . _ - only (no @: the e-mail is a separate sign-in)',
            },
          ]}
        >
          <Input autoComplete="off" disabled={signInLocked} data-testid="account-username" />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          name="email"
          label={label('email', 'E-mail')}
          rules={[{ type: 'email', message: 'Enter an e-mail address' }]}
        >
          <Input autoComplete="off" disabled={signInLocked} data-testid="account-email" />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          name="password"
          label={label('password', 'Password')}
          rules={[
            { required: row === null, message: 'Set a password for the new account' },
            // The server's rule (packages/shared passwordPolicy): 8+ characters, not only spaces, not a common one.
            {
              validator: async (_rule, value: unknown) => {
                const problem = typeof value === 'string' && value !== '' ? passwordProblem(value) : null;
                if (problem) throw new Error(`The password ${problem}`);
              },
            },
          ]}
          extra={
            row === null ? 'At least 8 characters, not a common password' : 'Leave empty to keep the current password'
          }
        >
          <Input.Password
            autoComplete="new-password"
            disabled={signInLocked}
            placeholder={row === null ? undefined : 'Leave empty to keep'}
            data-testid="account-password"
          />
        </Form.Item>
      </Col>
      {company && (
        <Col span={12}>
          <Form.Item
            name="companyName"
            label={label('companyName', 'Company')}
            rules={[{ max: 100, message: 'At most 100 characters' }]}
          >
            <Input data-testid="account-company" />
          </Form.Item>
        </Col>
      )}
    </Row>
  );
}

export function accountDefaults(): Record<string, unknown> {
  return { name: '', username: '', email: '', password: '', status: 1, companyName: '', domain: '' };
}

/** A row as the form edits it: never a password (the API does not answer one). */
export function accountToForm(row: ResourceRow): Record<string, unknown> {
  return { ...row, password: '' };
}

/** Empty texts are sent as '' (the API's "none"; an empty password keeps the old one). */
export function accountToBody(values: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...values };
  for (const key of ['email', 'password', 'companyName', 'domain'])
    if (key in body && (body[key] === undefined || body[key] === null)) body[key] = '';
  return body;
}
