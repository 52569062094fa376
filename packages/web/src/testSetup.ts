import { configure } from '@testing-library/react';

// The console's pages are lazy chunks that jsdom transforms on first use; on a busy two-core machine
// that alone can take seconds, so waits for a page's first element allow for it (a wait that never
// succeeds still fails, just later).
configure({ asyncUtilTimeout: 10_000 });
