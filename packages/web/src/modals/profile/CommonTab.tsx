import { Col, DatePicker, Descriptions, Form, Input, Row, Select, Typography } from 'antd';
import {
  COMPANY_NAME_MAX,
  DATE_FORMAT,
  formatPercent,
  formatTimezone,
  formatUsdMicros,
  TIMEZONES,
  type AuthUser,
  type Profile,
} from '@adplane/shared';

const TIMEZONE_OPTIONS = TIMEZONES.map((offset) => ({ value: offset, label: formatTimezone(offset) }));

/**
 * Name, company, contract and time zone, plus what only an admin sets: the account's uid (shown while
 * an admin is acting as the user) or its API token, the channel domain, and the platform prices.
 */
export function CommonTab({ user, profile }: { user: AuthUser; profile: Profile }) {
  const adminViewing = user.adminId != null;
  return (
    <>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item name="name" label="Name" rules={[{ required: true, whitespace: true, message: '' }]}>
            <Input maxLength={255} autoComplete="off" data-testid="profile-name" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="companyName" label="Company Name">
            <Input maxLength={COMPANY_NAME_MAX} showCount autoComplete="organization" data-testid="profile-companyName" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="companyAddress" label="Company Address">
            <Input maxLength={500} autoComplete="street-address" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="contactNumber" label="Contact Number">
            <Input maxLength={50} autoComplete="tel" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="contactExpired" label="Contract Expires">
            <DatePicker format={DATE_FORMAT} className="full-width" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="timezone" label="Time Zone" extra="Reports and dates are shown in this time zone.">
            <Select options={TIMEZONE_OPTIONS} showSearch={{ optionFilterProp: 'label' }} data-testid="profile-timezone" />
          </Form.Item>
        </Col>
        <Col span={12}>
          {adminViewing ? (
            <Form.Item label="UID">
              <Input value={profile.uid ?? ''} readOnly variant="filled" data-testid="profile-uid" />
            </Form.Item>
          ) : (
            <Form.Item label="API Token">
              <Typography.Text copyable={!!profile.token} code className="profile-token" data-testid="profile-token">
                {profile.token || 'none'}
              </Typography.Text>
            </Form.Item>
          )}
        </Col>
        <Col span={12}>
          <Form.Item label="Domain">
            <Input value={profile.domain ?? ''} readOnly variant="filled" data-testid="profile-domain" />
          </Form.Item>
        </Col>
      </Row>
      <Descriptions
        size="small"
        bordered
        column={2}
        title="Platform prices"
        className="profile-prices"
        data-testid="profile-prices"
        items={[
          { key: 'priceReq', label: 'Requests (per 1,000)', children: formatUsdMicros(profile.priceReq ?? 0) },
          { key: 'priceImp', label: 'Impressions (per 1,000)', children: formatUsdMicros(profile.priceImp ?? 0) },
          { key: 'pricePostbid', label: 'Post-bid scans (per 1,000)', children: formatUsdMicros(profile.pricePostbid ?? 0) },
          { key: 'priceDsp', label: 'DSP revenue share', children: formatPercent(profile.priceDsp ?? 0) },
        ]}
      />
    </>
  );
}
