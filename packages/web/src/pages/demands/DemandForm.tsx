import { Col, Form, Input, Row, Select, Switch, Tooltip } from 'antd';
import { type ReactNode } from 'react';
import { TIMEZONE_OPTIONS } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { MoneyInput, PercentInput, useHelpLabel } from '../../resources/fields.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { AccountFields } from '../accounts/AccountFields.js';
import { ContractAlert } from './contract.js';
import { DOMAIN_RULE } from '../accounts/formParts.js';
import { SectionTitle, trimmed } from '../../resources/formParts.js';

export const SUPER_ONLY = {
  create: 'Only the super admin can create demand accounts',
  archive: 'Only the super admin can archive or restore demand accounts',
  delete: 'Only the super admin can delete demand accounts',
  prices: 'Only the super admin can change prices',
} as const;

/** Whether the signed-in admin is one of the non-super admins (what they may not do: packages/shared adminRights.ts). */
export function useIsLimitedAdmin(): boolean {
  return useUser().disabled === true;
}

const FLAGS: { name: string; label: string; extra: string }[] = [
  { name: 'showDsp', label: 'DSP view', extra: 'May switch to the DSP view' },
  { name: 'showPostbidPix', label: 'Post-bid pixels', extra: 'Post-bid IVT pixels' },
  { name: 'showPostbidWh', label: 'Post-bid warehouse', extra: 'Post-bid scan reports' },
  { name: 'showCheckIVT', label: 'IVT checks', extra: 'Pre-bid IVT options' },
  { name: 'showSystemCost', label: 'System cost', extra: 'Month-to-date cost' },
];

/**
 * The account's choice of what each side of its trade may name in its reports (shared
 * stats/visibility.ts): off, neither sees the other's names; never the other side's money.
 */
const SIDE_FLAGS: { name: string; label: string; extra: string }[] = [
  {
    name: 'showDemandToSubs',
    label: 'Subpublishers see the demand their traffic was sold to',
    extra:
      'Their reports break down and filter by demand tag, partner, advertiser, campaign, creative, deal and marketplace: names only, never revenue, cost or margin',
  },
  {
    name: 'showSupplyToAdvs',
    label: 'Advertisers see the supply they bought',
    extra:
      "Their reports break down and filter by channel, subpublisher, supplier, ad exchange and publisher id: names only, never the publishers' traffic or payout",
  },
];

/** A price input that a non-super admin sees greyed out, with the reason on hover. */
function PriceItem({
  name,
  label,
  locked,
  children,
}: {
  name: string;
  label: ReactNode;
  locked: boolean;
  children: ReactNode;
}) {
  const item = (
    <Form.Item name={name} label={label}>
      {children}
    </Form.Item>
  );
  return locked ? (
    <Tooltip title={SUPER_ONLY.prices}>
      <div data-testid={`locked-${name}`}>{item}</div>
    </Tooltip>
  ) : (
    item
  );
}

/** A demand account (tenant): its sign-in, time zone, what the platform charges it, and what it may use. */
export function DemandForm({ row }: ResourceFormProps) {
  const label = useHelpLabel('demands');
  const locked = useIsLimitedAdmin();
  return (
    <>
      <ContractAlert row={row} />
      <AccountFields kind="demands" row={row} signInLocked={locked && row !== null} />
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item
            name="domain"
            normalize={trimmed}
            label={label('domain', 'Channel domain')}
            rules={[DOMAIN_RULE]}
            extra="Host name of the account's channels"
          >
            <Input placeholder="ads.example.com" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="timezone" label={label('timezone', 'Time zone')} extra="Reports and dates of the account">
            <Select
              options={TIMEZONE_OPTIONS.map((t) => ({ value: t.id, label: t.name }))}
              showSearch={{ optionFilterProp: 'label' }}
              style={{ width: 160 }}
            />
          </Form.Item>
        </Col>
      </Row>

      <SectionTitle>Prices</SectionTitle>
      <Row gutter={16}>
        <Col span={12}>
          <PriceItem name="priceReq" label={label('priceReq', 'Request CPM')} locked={locked}>
            <MoneyInput disabled={locked} data-testid="demand-priceReq" />
          </PriceItem>
        </Col>
        <Col span={12}>
          <PriceItem name="priceImp" label={label('priceImp', 'Impression CPM')} locked={locked}>
            <MoneyInput disabled={locked} data-testid="demand-priceImp" />
          </PriceItem>
        </Col>
        <Col span={12}>
          <PriceItem name="pricePostbid" label={label('pricePostbid', 'Post-bid CPM')} locked={locked}>
            <MoneyInput disabled={locked} data-testid="demand-pricePostbid" />
          </PriceItem>
        </Col>
        <Col span={12}>
          <PriceItem name="priceDsp" label={label('priceDsp', 'DSP revenue share')} locked={locked}>
            <PercentInput disabled={locked} />
          </PriceItem>
        </Col>
      </Row>

      <SectionTitle>Features</SectionTitle>
      <Row gutter={16}>
        {FLAGS.map((f) => (
          <Col span={8} key={f.name}>
            <Form.Item name={f.name} label={label(f.name, f.label)} valuePropName="checked" extra={f.extra}>
              <Switch data-testid={`demand-${f.name}`} />
            </Form.Item>
          </Col>
        ))}
      </Row>

      <SectionTitle>What subpublishers and advertisers see in reports</SectionTitle>
      <Row gutter={16}>
        {SIDE_FLAGS.map((f) => (
          <Col span={12} key={f.name}>
            <Form.Item name={f.name} label={label(f.name, f.label)} valuePropName="checked" extra={f.extra}>
              <Switch data-testid={`demand-${f.name}`} />
            </Form.Item>
          </Col>
        ))}
      </Row>
      <SectionTitle>Sign-in</SectionTitle>
      <Row gutter={16}>
        <Col span={24}>
          <Form.Item
            name="requireTwoFactor"
            label={label('requireTwoFactor', 'Require two-factor sign-in')}
            valuePropName="checked"
            extra="Every user of this account signs in with a code of an authenticator app after the password; one without it sets it up at its next sign-in, and sessions begun without it end when this is turned on. API keys are not affected."
          >
            <Switch data-testid="demand-requireTwoFactor" />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}
