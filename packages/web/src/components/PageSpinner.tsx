import { Spin } from 'antd';

/** Shown while the session is restored or a page is being fetched. */
export function PageSpinner() {
  return (
    <div className="page-spinner" data-testid="page-spinner">
      <Spin size="large" />
    </div>
  );
}
