import NotFoundPage from './NotFoundPage.js';

/**
 * The page of a route whose screen is not built yet: the standard not-found page, in a chunk of
 * its own so that the route table can import every page lazily.
 */
export default function NotBuiltPage() {
  return <NotFoundPage />;
}
