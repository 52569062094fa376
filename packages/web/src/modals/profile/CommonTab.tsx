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
import { EmptyValue } from '../../components/EmptyValue.js';
import { EMPTY_MARK } from '../../format/empty.js';
import { LimitedInput, lengthRule, NAME_MAX } from '../../resources/formParts.js';

const TIMEZONE_OPTIONS = TIMEZONES.map((offset) => ({ value: offset, label: formatTimezone(offset) }));

/**
 * Name, company, contract and time zone, plus what only an admin sets: the account's uid (shown while
 * an admin is acting as the user) or its API token, the channel domain, and (a demand account's) the
 * platform prices.
 * Read-only (sub and adv users), an empty field shows the empty mark (ReadOnlyView marks every field).
 */
export function CommonTab({ user, profile }: { user: AuthUser; profile: Profile }) {
  const adminViewing = user.adminId != null;
  return (
    <>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item
            name="name"
            label="Name"
            rules={[{ required: true, whitespace: true, message: '' }, lengthRule(NAME_MAX)]}
          >
            <LimitedInput max={NAME_MAX} autoComplete="off" data-testid="profile-name" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="companyName" label="Company name" rules={[lengthRule(COMPANY_NAME_MAX)]}>
            <LimitedInput max={COMPANY_NAME_MAX} autoComplete="organization" data-testid="profile-companyName" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="companyAddress" label="Company address" rules={[lengthRule(500)]}>
            <LimitedInput max={500} autoComplete="street-address" data-testid="profile-companyAddress" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="contactNumber" label="Contact number" rules={[lengthRule(50)]}>
            <LimitedInput max={50} autoComplete="tel" data-testid="profile-contactNumber" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="contactExpired" label="Contract expires">
            <DatePicker format={DATE_FORMAT} className="full-width" data-testid="profile-contactExpired" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="timezone" label="Time zone" extra="Reports and dates are shown in this time zone.">
            <Select
              options={TIMEZONE_OPTIONS}
              showSearch={{ optionFilterProp: 'label' }}
              data-testid="profile-timezone"
            />
          </Form.Item>
        </Col>
        <Col span={12}>
          {adminViewing ? (
            <Form.Item label="UID">
              <Input
                value={profile.uid ?? ''}
                readOnly
                variant="filled"
                placeholder={EMPTY_MARK}
                data-testid="profile-uid"
              />
            </Form.Item>
          ) : (
            <Form.Item label="API token">
              {profile.token ? (
                <Typography.Text copyable code className="profile-token" data-testid="profile-token">
                  {profile.token}
                </Typography.Text>
              ) : (
                <EmptyValue testId="profile-token" />
              )}
            </Form.Item>
          )}
        </Col>
        <Col span={12}>
          <Form.Item label="Domain">
            <Input
              value={profile.domain ?? ''}
              readOnly
              variant="filled"
              placeholder={EMPTY_MARK}
              data-testid="profile-domain"
            />
          </Form.Item>
        </Col>
      </Row>
      {/* (what the platform bills a demand account: nothing of a subpublisher's, advertiser's or SDK user's own) */}
      {user.type === 'demand' && (
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
            {
              key: 'pricePostbid',
              label: 'Post-bid scans (per 1,000)',
              children: formatUsdMicros(profile.pricePostbid ?? 0),
            },
            { key: 'priceDsp', label: 'DSP revenue share', children: formatPercent(profile.priceDsp ?? 0) },
          ]}
        />
      )}
    </>
  );
}
