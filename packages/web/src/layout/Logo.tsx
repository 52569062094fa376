import { Link } from 'react-router';

function Mark() {
  return (
    <svg className="app-logo-mark" viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="7" fill="#1d4ed8" />
      <path
        d="M7 23 L13.5 9 L20 23"
        fill="none"
        stroke="#fff"
        strokeWidth="3"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <path d="M10 18 H17" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
      <circle cx="24" cy="10.5" r="3" fill="#7dd3fc" />
    </svg>
  );
}

/** The logo links to config.landing when one is set, else to the dashboard. */
export function Logo({ href }: { href: string }) {
  const content = (
    <>
      <Mark />
      <span className="app-logo-text">adplane</span>
    </>
  );
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(href)) {
    return (
      <a className="app-logo" href={href} data-testid="nav-logo">
        {content}
      </a>
    );
  }
  return (
    <Link className="app-logo" to={href} data-testid="nav-logo">
      {content}
    </Link>
  );
}
