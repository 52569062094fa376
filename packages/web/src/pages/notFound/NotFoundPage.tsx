import { Result } from 'antd';
import { Link } from 'react-router';

const NOT_FOUND_TITLE = 'This page could not be found';

/**
 * The 404 page: an address that matches no route of the console.
 */
export default function NotFoundPage() {
  return (
    <Result
      status="404"
      title={<span data-testid="not-found-title">{NOT_FOUND_TITLE}</span>}
      subTitle="404: the address does not match any page of the console."
      extra={
        <Link to="/" data-testid="not-found-home">
          Back to the home page
        </Link>
      }
    />
  );
}

export { NotFoundPage };
