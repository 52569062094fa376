import { lazy, Suspense, useMemo } from 'react';
import { Card, Col, Descriptions, Row, Tag, Typography, type DescriptionsProps } from 'antd';
import { ExportOutlined, RightOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { formatTimezone } from '@adplane/shared';
import { useAuth, useUser } from '../../auth/authContext.js';
import { buildNavigation, type NavItem } from '../../layout/navigation.js';
import { userTypeLabel } from '../../layout/userType.js';
import { canSwitchMode, modeLabel } from '../../prefs/mode.js';
import { linkTarget, useUiTabs } from '../../prefs/uiTabs.js';
import { DashboardStatsSkeleton } from './DashboardStatsSkeleton.js';
import { SdkAppsCard } from './SdkAppsCard.js';
import { SECTION_SUMMARIES, PAGE_SUMMARIES, greeting } from './summaries.js';

// The numbers and charts load as their own chunk (charts are heavy): the page shows at once.
const DashboardStats = lazy(() => import('./DashboardStats.js').then((m) => ({ default: m.DashboardStats })));

function SectionLink({ item, newTabs }: { item: NavItem; newTabs: boolean }) {
  const where = item.path ?? item.href;
  const summary = where ? PAGE_SUMMARIES[where] : undefined;
  const body = (
    <>
      <span className="dashboard-link-label">
        {item.label}
        {item.external ? <ExportOutlined /> : <RightOutlined />}
      </span>
      {summary && <span className="dashboard-link-summary">{summary}</span>}
    </>
  );
  if (item.href) {
    return (
      <a
        className="dashboard-link"
        href={item.href}
        target="_blank"
        rel="noopener noreferrer"
        data-testid={`dashboard-link-${item.key}`}
      >
        {body}
      </a>
    );
  }
  return (
    <Link
      className="dashboard-link"
      to={item.path ?? '/'}
      data-testid={`dashboard-link-${item.path}`}
      {...linkTarget(newTabs)}
    >
      {body}
    </Link>
  );
}

/**
 * The landing page: who is signed in, the account's settings, and one card per section of the
 * navigation bar, built from the same model so the two never disagree.
 */
export default function DashboardPage() {
  const user = useUser();
  const { mode, edition } = useAuth();
  const newTabs = useUiTabs();
  const navigation = useMemo(() => buildNavigation({ user, mode, edition }), [user, mode, edition]);
  const sections = navigation.main.filter((item) => item.path !== '/');
  const switchable = canSwitchMode(user);
  const facts: DescriptionsProps['items'] = [
    { key: 'type', label: 'Account type', children: userTypeLabel(user.type) },
    { key: 'timezone', label: 'Time zone', children: formatTimezone(user.timezone ?? 0) },
    // The view only for those who may switch (no mode chip for the others: they have one view).
    ...(switchable
      ? [{ key: 'view', label: 'View', children: `${modeLabel(mode)} (switch with SSP | DSP in the top bar)` }]
      : []),
    { key: 'edition', label: 'Edition', children: edition },
    ...(user.config?.host ? [{ key: 'host', label: 'Ad server host', children: user.config.host, span: 2 }] : []),
  ];

  return (
    <div className="dashboard" data-testid="dashboard">
      <div className="dashboard-head">
        <div>
          <Typography.Title level={3} className="dashboard-title" data-testid="dashboard-greeting">
            {greeting(new Date())}, {user.name}
          </Typography.Title>
          <div className="dashboard-tags">
            <Tag color="blue" data-testid="dashboard-user-type">
              {userTypeLabel(user.type)}
            </Tag>
            {switchable && <Tag color={mode === 'ssp' ? 'geekblue' : 'purple'}>{modeLabel(mode)} view</Tag>}
            {user.adminId != null && <Tag color="orange">Admin acting as this user</Tag>}
          </div>
        </div>
      </div>

      {user.type !== 'sdk' ? (
        <Suspense fallback={<DashboardStatsSkeleton />}>
          <DashboardStats />
        </Suspense>
      ) : (
        <SdkAppsCard />
      )}

      <Descriptions
        className="dashboard-facts"
        size="small"
        bordered
        column={3}
        data-testid="dashboard-facts"
        items={facts}
      />

      <Row gutter={[16, 16]} className="dashboard-sections">
        {sections.map((section) => (
          <Col key={section.key} xs={24} md={12} xl={8}>
            <Card
              size="small"
              title={section.label}
              className="dashboard-card"
              data-testid={`dashboard-card-${section.key}`}
              extra={
                SECTION_SUMMARIES[section.key] ? (
                  <span className="dashboard-card-extra">{SECTION_SUMMARIES[section.key]}</span>
                ) : null
              }
            >
              {(section.children ?? [section]).map((item) => (
                <SectionLink key={item.key} item={item} newTabs={newTabs} />
              ))}
            </Card>
          </Col>
        ))}
      </Row>
    </div>
  );
}
