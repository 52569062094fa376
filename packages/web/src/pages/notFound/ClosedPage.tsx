import { Result } from 'antd';
import { Link } from 'react-router';

/**
 * A page the signed-in user may not open: the reason (its account type, or the mode or edition rule in
 * the server's own words) and a way back. The user stays signed in: signing in again would not open it.
 */
export function ClosedPage({ reason }: { reason: string }) {
  return (
    <Result
      status="403"
      title={<span data-testid="closed-page-title">This page is not open to this account</span>}
      subTitle={<span data-testid="closed-page-reason">{reason}</span>}
      extra={
        <Link to="/" data-testid="closed-page-home">
          Back to the home page
        </Link>
      }
    />
  );
}
