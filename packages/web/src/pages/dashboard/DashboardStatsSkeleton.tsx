import { Card, Col, Row, Skeleton } from 'antd';

/** The dashboard's numbers while they load: the cards' and charts' places, so the page does not jump. */
export function DashboardStatsSkeleton() {
  return (
    <div className="dashboard-stats" data-testid="dashboard-stats-loading" aria-busy="true">
      <Row gutter={[16, 16]} className="stat-cards">
        {[0, 1, 2, 3, 4].map((i) => (
          <Col key={i} xs={12} md={8} xl={4} flex="1">
            <Card size="small">
              <Skeleton active title={{ width: '60%' }} paragraph={{ rows: 2 }} />
            </Card>
          </Col>
        ))}
      </Row>
      <Row gutter={[16, 16]} style={{ marginTop: 16 }}>
        {[0, 1].map((i) => (
          <Col key={i} xs={24} xl={12}>
            <Card size="small">
              <Skeleton active title={{ width: '40%' }} paragraph={{ rows: 7 }} style={{ height: 260 }} />
            </Card>
          </Col>
        ))}
      </Row>
    </div>
  );
}
