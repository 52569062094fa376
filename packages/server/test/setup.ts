import { keepTestsClearOfHourTurns } from './hourTurn.js';

// Runs before every server test file (vitest.config.ts, setupFiles).
keepTestsClearOfHourTurns();
