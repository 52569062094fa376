import { Component, useEffect, type ErrorInfo, type ReactNode } from 'react';
import { Result } from 'antd';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { NotFoundPage } from '../pages/notFound/NotFoundPage.js';
import { isChunkLoadError, reloadForChunkError } from './chunkReload.js';

export const ERROR_PAGE_FAILED = 'An error occurred while showing the error page';

/** The title of the error page: the error's message, default 'Error'. */
export function routeErrorTitle(error: unknown): string {
  if (isRouteErrorResponse(error)) {
    const data: unknown = error.data;
    if (typeof data === 'object' && data !== null && typeof (data as { message?: unknown }).message === 'string') {
      return (data as { message: string }).message || 'Error';
    }
    if (typeof data === 'string' && data.trim() !== '') return data;
    return error.statusText || 'Error';
  }
  if (error instanceof Error) return error.message || 'Error';
  if (typeof error === 'string' && error.trim() !== '') return error;
  return 'Error';
}

function RouteErrorContent() {
  const error = useRouteError();
  const chunkFailure = isChunkLoadError(error);
  useEffect(() => {
    if (chunkFailure) reloadForChunkError();
    else console.error('Route error:', error);
  }, [chunkFailure, error]);
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;
  return (
    <Result
      status="error"
      title={<span data-testid="error-page-title">{routeErrorTitle(error)}</span>}
      subTitle={
        chunkFailure
          ? 'A part of the console could not be downloaded. Reload the page to get the latest version.'
          : undefined
      }
      extra={
        <a href="/" data-testid="error-page-home">
          Back to the home page
        </a>
      }
    />
  );
}

/** Catches a failure of the error page itself. */
export class ErrorPageBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(ERROR_PAGE_FAILED, error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="error-page-fallback" data-testid="error-page-fallback">
        <h1>{ERROR_PAGE_FAILED}</h1>
        <a href="/">Go back to home</a>
      </div>
    );
  }
}

/** The route error element: the error's message as the title; a 404 shows the not-found page. */
export function RouteErrorPage() {
  return (
    <ErrorPageBoundary>
      <RouteErrorContent />
    </ErrorPageBoundary>
  );
}
